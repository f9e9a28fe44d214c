"""`./lab export-gradescope LAB`: an autograder zip for Gradescope that runs this very grader.

Gradescope unpacks the zip into /autograder/source, runs setup.sh once (as root, on its Ubuntu
image) and then run_autograder for each submission, which must leave results/results.json.
The zip carries the kit itself (its tracked files at HEAD, via `git archive`), so the
submission is graded exactly as `./lab grade` grades it here: same rubric, checkers, sandbox."""
from __future__ import annotations

import io
import subprocess
import zipfile
from pathlib import Path

import grader
from handofflab import paths
from handofflab.console import LabError, ok, warn

OUT = paths.RESULTS / "gradescope"

# What the zip leaves out of the kit: the grader's own tests, the reference solutions and the
# buggy samples (grading/tests/), none of which grading needs, and all a student must not see.
EXCLUDED = ("grading/tests/",)

# The two scripts Gradescope runs, as templates (Python's str.format: {lab}, {allow_weak},
# {weak_flag}; a literal brace is doubled).
TEMPLATES = paths.GRADING / "gradescope"
SETUP = (TEMPLATES / "setup.sh.template").read_text()
RUN = (TEMPLATES / "run_autograder.template").read_text()


def export(lab: str, allow_weak_isolation: bool = False) -> Path:
    rubric = grader.load_rubric(lab)  # an unknown lab is a clear error
    dirty = subprocess.run(["git", "-C", str(paths.ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    if dirty:
        warn("the zip packs the kit as committed (HEAD); these uncommitted changes are NOT in it:\n"
             + "\n".join("  " + line for line in dirty.splitlines()[:20]))
    head = subprocess.run(["git", "-C", str(paths.ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        raise LabError("export-gradescope packs the kit from git, and this is not a git checkout",
                       "run it in a clone of the kit")
    archive = subprocess.run(["git", "-C", str(paths.ROOT), "archive", "--format=zip", "--prefix=kit/", "HEAD"],
                             capture_output=True)
    OUT.mkdir(parents=True, exist_ok=True)
    target = OUT / f"{lab}-autograder.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        weak = "--allow-weak-isolation" if allow_weak_isolation else ""
        for name, text in (("setup.sh", SETUP.format(lab=lab, allow_weak="yes" if weak else "no", weak_flag=weak)),
                           ("run_autograder", RUN.format(lab=lab, weak_flag=weak))):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o100755 << 16  # executable, as Gradescope requires
            z.writestr(info, text)
        with zipfile.ZipFile(io.BytesIO(archive.stdout)) as kit:
            for info in kit.infolist():
                if not info.filename.removeprefix("kit/").startswith(EXCLUDED):
                    z.writestr(info, kit.read(info))
    ok(f"{target} (the kit at {head.stdout.strip()}): upload it as the autograder of the Gradescope "
       f"assignment; students submit {rubric.file}")
    return target
