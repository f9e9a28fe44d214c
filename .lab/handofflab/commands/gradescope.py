"""`./lab export-gradescope LAB`: an autograder zip for Gradescope that runs this very grader.

Gradescope unpacks the zip into /autograder/source, runs setup.sh once (as root, on its Ubuntu
image) and then run_autograder for each submission, which must leave results/results.json.
setup.sh proves the grader before any student submits: it grades the lab's starter and fails the
build unless the marks are those recorded here (known-marks.json, from expected.toml).
The zip carries the kit itself (its tracked files at HEAD, via `git archive`), so the
submission is graded exactly as `./lab grade` grades it here: same rubric, checkers, jail."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import grader
from handofflab.ground import console, paths
from handofflab.commands import kitarchive, rubriccheck, verify
from handofflab.ground.console import ok

OUT = paths.RESULTS / "gradescope"

# The two scripts Gradescope runs, as templates (Python's str.format: {lab}, {allow_weak},
# {weak_flag}; a literal brace is doubled).
TEMPLATES = paths.GRADING / "gradescope"
SETUP = (TEMPLATES / "setup.sh.template").read_text()
RUN = (TEMPLATES / "run_autograder.template").read_text()


def export(lab: str, allow_weak_isolation: bool = False, check: bool = True) -> Path:
    """`check`: first `./lab check rubric LAB` (the handout's points and every sample's marks, with this rubric);
    the command always checks, a test of the export's shape alone may not."""
    rubric = grader.load_rubric(lab)  # an unknown lab, a wrong rubric: a clear error
    if check:
        rubriccheck.check(lab)
    head, kit = kitarchive.working_tree("export-gradescope")
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
        for info, data in kit:
            mode = info.external_attr >> 16
            if mode & 0o170000 == 0o120000:  # a symbolic link stays one
                z.writestr(info, data)
                continue
            executable = info.is_dir() or mode & 0o111
            z.writestr(_entry(info.filename, 0o755 if executable else 0o644, info.date_time), data)
    ok(f"{target} (the kit at {head}): upload it as the autograder of the Gradescope "
       f"assignment; students submit {rubric.file}")
    if not allow_weak_isolation:  # the platform's container is not this machine: said before a term, not at its first grading
        console.info("The grader jails each submission (namespaces, a uid of its own), which the container must allow: the "
             "zip's setup.sh checks that when Gradescope builds it, and fails, naming --allow-weak-isolation, where "
             "it cannot (README: \"The jail on a platform\").")
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
