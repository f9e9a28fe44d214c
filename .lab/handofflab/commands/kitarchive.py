"""The kit as an autograder carries it: its tracked files at HEAD (`git archive`), without the grader's
own tests, the reference solutions and the buggy samples (grading/tests/), which grading does not need
and a student must not see. Gradescope's zip and PrairieLearn's grader image both hold this."""
from __future__ import annotations

import io
import zipfile

from handofflab import paths, toolchain
from handofflab.console import LabError, warn

EXCLUDED = ("grading/tests/",)


def at_head(what: str) -> tuple[str, list[tuple[zipfile.ZipInfo, bytes]]]:
    """(HEAD's short hash, the kit's entries under kit/ with their data), warning of uncommitted changes."""
    git = ["git", "-C", str(paths.ROOT)]
    need = f"{what} packs the kit from git: install git"
    dirty = toolchain.run([*git, "status", "--porcelain", "--untracked-files=no"], "git status", need, timeout=60,
                          check=False).stdout.strip()
    if dirty:
        warn(f"{what} packs the kit as committed (HEAD); these uncommitted changes are NOT in it:\n"
             + "\n".join("  " + line for line in dirty.splitlines()[:20]))
    head = toolchain.run([*git, "rev-parse", "--short", "HEAD"], "git rev-parse", need, timeout=60, check=False)
    if head.returncode != 0:
        raise LabError(f"{what} packs the kit from git, and this is not a git checkout", "run it in a clone of the kit")
    archive = toolchain.run([*git, "archive", "--format=zip", "--prefix=kit/", "HEAD"], "git archive", need,
                            timeout=300, text=False)
    with zipfile.ZipFile(io.BytesIO(archive.stdout)) as kit:
        entries = [(info, kit.read(info)) for info in kit.infolist()
                   if not info.filename.removeprefix("kit/").startswith(EXCLUDED)]
    return head.stdout.strip(), entries
