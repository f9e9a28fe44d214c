"""The kit as an autograder carries it: its tracked files as they are in the working tree (what the instructor
sees, uncommitted edits included), without the grader's own tests, the reference solutions and the buggy samples
(grading/tests/), which grading does not need and a student must not see. Gradescope's zip and PrairieLearn's
grader image both hold this."""
from __future__ import annotations

import os
import stat
import zipfile

from handofflab.ground import paths, toolchain
from handofflab.commands.studentcopy import tracked
from handofflab.ground.console import LabError, warn

EXCLUDED = ("grading/tests/",)


def working_tree(what: str) -> tuple[str, list[tuple[zipfile.ZipInfo, bytes]]]:
    """(what the kit is: HEAD's short hash, and how many tracked files differ from it; the kit's entries under kit/
    with their data). Packed from the disk, so that a rubric changed and checked (./lab check rubric) is the one
    exported, committed or not; git only says which files are the kit's."""
    git = ["git", "-C", str(paths.ROOT)]
    need = f"{what} packs the kit's tracked files: install git"
    head = toolchain.run([*git, "rev-parse", "--short", "HEAD"], "git rev-parse", need, timeout=60, check=False)
    if head.returncode != 0:
        raise LabError(f"{what} packs the kit's tracked files, and this is not a git checkout", "run it in a clone of the kit")
    dirty = toolchain.run([*git, "status", "--porcelain", "--untracked-files=no"], "git status", need, timeout=60,
                          check=False).stdout.strip().splitlines()
    new = tracked("--others", "--exclude-standard")
    if new:
        warn(f"{what} packs the kit's tracked files; these new ones are not tracked and NOT in it (`git add` them):\n"
             + "\n".join("  " + f for f in new[:20]))
    entries = []
    for f in sorted(f for f in tracked() if not f.startswith(EXCLUDED)):
        path = paths.ROOT / f
        try:
            st = path.lstat()
        except FileNotFoundError:
            continue  # deleted in the working tree: not what the instructor sees
        info = zipfile.ZipInfo(f"kit/{f}", (1980, 1, 1, 0, 0, 0))
        info.external_attr = (st.st_mode & 0xFFFF) << 16
        data = os.readlink(path).encode() if stat.S_ISLNK(st.st_mode) else path.read_bytes()
        entries.append((info, data))
    label = head.stdout.strip() + (f" with {len(dirty)} uncommitted change(s)" if dirty else "")
    return label, entries
