"""What a student copy is, read by the CLI (which commands it offers), the doctor (which tools it
needs) and `release` (which writes one): the marker at its root, its commands, its doctor's rows, and
the kit's files it is made from (what git tracks)."""
from __future__ import annotations

import tomllib

from handofflab.ground import paths, toolchain
from handofflab.ground.console import LabError

# The marker a student copy carries at its root: `./lab` then offers the student's commands only.
MARKER = paths.STUDENT_COPY.name
STUDENT_COMMANDS = ("check-lab", "hint", "doctor", "check")
# Every command of the full kit (cli.py's, held to it by a test): a book page that names one the copy lacks says so.
KIT_COMMANDS = ("bench", "book", "check", "check-lab", "client", "doctor", "export-gradescope", "export-prairielearn",
                "grade", "grade-batch", "grade-isolation", "hint", "notebooks", "release", "serve", "test", "tour",
                "verify-verdicts")
STUDENT_CHECKS = ("specs",)  # of `./lab check`: TLC on the specs the copy holds (a hint's "run TLC on X")


def student_usage() -> str:
    return "./lab check-lab LAB PATH | hint LAB | check specs NAME | doctor"


# The doctor's rows a copy needs: it builds no book (it holds it as HTML) and runs no JPF; TLC is fetched
# from Maven Central the first time a check needs it.
DOCTOR_ROWS = ("java", "mvn", "python", "TLC", "grader jail", "kit readable in the jail")


def student_copy() -> dict | None:
    """The marker of a student copy (its labs and what it leaves out), or None in the full kit."""
    marker = paths.ROOT / MARKER
    return tomllib.loads(marker.read_text()) if marker.exists() else None


def in_copy(command: str, sub: str | None) -> bool:
    """Whether a student copy runs `./lab command [sub]`."""
    return command in STUDENT_COMMANDS and (command != "check" or sub in STUDENT_CHECKS)


def tracked(*which: str) -> list[str]:
    """The kit's files git tracks (or, with "--others", the new ones it does not yet)."""
    proc = toolchain.run(["git", "-C", str(paths.ROOT), "ls-files", *which], "git ls-files",
                         "a release and the exports copy the kit's tracked files: run them in a git clone of the kit",
                         timeout=60, check=False)
    if proc.returncode != 0:
        raise LabError("a release and the exports copy the kit's tracked files, and this is no git checkout",
                       "run it in a clone of the kit")
    return proc.stdout.split()
