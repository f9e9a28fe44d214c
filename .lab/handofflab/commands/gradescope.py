"""`./lab export-gradescope LAB`: an autograder zip for Gradescope that runs this very grader.

Gradescope unpacks the zip into /autograder/source, runs setup.sh once (as root, on its Ubuntu
image) and then run_autograder for each submission, which must leave results/results.json.
setup.sh proves the grader before any student submits: it grades the lab's starter and fails the
build unless the marks are those recorded here (known-marks.json, from expected.toml).
The zip carries the kit itself (its tracked files at HEAD, via `git archive`), so the
submission is graded exactly as `./lab grade` grades it here: same rubric, checkers, jail."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import grader
from handofflab import paths, toolchain
from handofflab.commands import verify
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
    git = ["git", "-C", str(paths.ROOT)]
    need = "export-gradescope packs the kit from git: install git"
    dirty = toolchain.run([*git, "status", "--porcelain", "--untracked-files=no"], "git status", need, timeout=60,
                          check=False).stdout.strip()
    if dirty:
        warn("the zip packs the kit as committed (HEAD); these uncommitted changes are NOT in it:\n"
             + "\n".join("  " + line for line in dirty.splitlines()[:20]))
    head = toolchain.run([*git, "rev-parse", "--short", "HEAD"], "git rev-parse", need, timeout=60, check=False)
    if head.returncode != 0:
        raise LabError("export-gradescope packs the kit from git, and this is not a git checkout",
                       "run it in a clone of the kit")
    archive = toolchain.run([*git, "archive", "--format=zip", "--prefix=kit/", "HEAD"], "git archive", need,
                            timeout=300, text=False)
    OUT.mkdir(parents=True, exist_ok=True)
    target = OUT / f"{lab}-autograder.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        weak = "--allow-weak-isolation" if allow_weak_isolation else ""
        for name, text in (("setup.sh", SETUP.format(lab=lab, allow_weak="yes" if weak else "no", weak_flag=weak)),
                           ("run_autograder", RUN.format(lab=lab, weak_flag=weak))):
            z.writestr(_entry(name, 0o755), text)  # executable, as Gradescope requires
        # the marks setup.sh must see the grader give the lab's starter (grading/tests/ stays out of the zip)
        z.writestr(_entry("known-marks.json", 0o644), json.dumps({"submission": f"labs/{lab}/starter",
                                                                 "marks": verify.sample_marks()[lab]["starter"]}))
        with zipfile.ZipFile(io.BytesIO(archive.stdout)) as kit:
            for info in kit.infolist():
                if not info.filename.removeprefix("kit/").startswith(EXCLUDED):
                    mode = info.external_attr >> 16
                    if mode & 0o170000 == 0o120000:  # a symbolic link stays one
                        z.writestr(info, kit.read(info))
                        continue
                    executable = info.is_dir() or mode & 0o111
                    z.writestr(_entry(info.filename, 0o755 if executable else 0o644, info.date_time), kit.read(info))
    ok(f"{target} (the kit at {head.stdout.strip()}): upload it as the autograder of the Gradescope "
       f"assignment; students submit {rubric.file}")
    return target


def _entry(name: str, mode: int, date_time=(1980, 1, 1, 0, 0, 0)) -> zipfile.ZipInfo:
    """An entry that unzip restores readable by everyone: the grader's jail reads the kit (the public tests) as a
    uid of its own. git archive and zipfile leave a plain file's mode out or at 0600, and a kit unpacked so on
    Gradescope failed its own setup check (every public test "did not compile": error reading the file)."""
    info = zipfile.ZipInfo(name, date_time)
    info.create_system = 3  # Unix: unzip applies the mode below
    info.external_attr = ((0o040000 if name.endswith("/") else 0o100000) | mode) << 16 | (0x10 if name.endswith("/") else 0)
    info.compress_type = zipfile.ZIP_DEFLATED
    return info
