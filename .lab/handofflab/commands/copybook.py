"""The student copy's book: the kit's book built from a scratch copy of its sources, where every
listing of an answer, and every counterexample that quotes one, is a note saying it is withheld, and
a chapter that names commands the copy lacks says so at its top."""
from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from handofflab.docs import book
from handofflab.ground import paths, toolchain
from handofflab.commands.studentcopy import KIT_COMMANDS, in_copy, student_usage

# A book page that includes one of these, or quotes one of their lines, is withheld in the copy.
NOTE = ("> **Withheld in the student copy.** This listing answers the lab(s) *{lab}*; "
        "your instructor's full kit has it.\n")


# An exercise's solution that answers part of a lab (`<details class="solution" data-lab="buffer">`) is left out of
# every copy's book, as the labs' answers are; the other solutions stay, folded under their exercises.
SOLUTION = re.compile(r'<details class="solution" data-lab="([\w-]+)">.*?</details>', re.S)
SOLUTION_NOTE = "*The solution answers part of the lab* {lab}*: your instructor's full kit has it.*"


def build(out: Path, secret: dict[str, str]) -> None:
    """The kit's book, built from a scratch copy of its sources where every include of a secret file,
    and every generated page that quotes one, is a note instead."""
    book.generate()  # the counterexamples and notebooks the chapters include (nothing to do if present)
    with tempfile.TemporaryDirectory() as tmp:
        mirror = Path(tmp)
        for part in ("specs", "java", "labs", "notebooks"):
            (mirror / part).symlink_to(paths.ROOT / part)
        shutil.copytree(paths.BOOK, mirror / "book",
                        ignore=lambda d, names: {"build", "tests"} & set(names) if Path(d) == paths.BOOK else set())
        src = mirror / "book" / "src"
        if not (src / "katex").exists():
            dist = toolchain.katex_assets()
            (src / "katex").mkdir()
            shutil.copyfile(dist / "katex.min.css", src / "katex" / "katex.min.css")
            shutil.copytree(dist / "fonts", src / "katex" / "fonts")
        names = {Path(f).name: lab for f, lab in secret.items()}
        for page in src.rglob("*.md"):
            text = page.read_text()

            def withheld(m: re.Match) -> str:
                target = m.group(1)
                included = (page.parent / target).resolve() if target.startswith("generated/") else None
                if any(target.endswith(f) or f"/{f}:" in target or target.endswith(f"/{f}") for f in secret):
                    lab = next(lab for f, lab in secret.items() if f in target)
                    return NOTE.format(lab=lab)
                if included and included.exists():
                    quoted = included.read_text()
                    for name, lab in names.items():
                        if name in quoted:
                            return NOTE.format(lab=lab).replace("This listing", "This counterexample quotes "
                                                                "lines of a file that")
                return m.group(0)
            # a listing's whole fence goes, so the note reads as text, not as code
            changed = re.sub(r"(?:```[\w-]*\n)?\{\{#include ([^}:]+)(?::[\w-]+)?\}\}(?:\n```)?",
                             lambda m: m.group(0) if withheld(m) == m.group(0) else withheld(m), text)
            changed = SOLUTION.sub(lambda m: SOLUTION_NOTE.format(lab=m[1]), changed)
            changed = _full_kit_note(changed, page.parent)
            if changed != text:
                page.write_text(changed)
        built = book.compile_book(mirror / "book")
        shutil.copytree(built, out)


# A command line the kit's text names: `./lab` and its command (and a `check` its subcommand).
COMMAND = re.compile(r"\./lab ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?")


def _full_kit_note(page: str, folder: Path) -> str:
    """A chapter that names commands a student copy lacks (itself or in a file it includes) says so at its top,
    so that no line of the copy's book tells a student to run what the copy refuses (the self-learner's full
    kit has them all)."""
    text = page + "".join((folder / m.group(1)).read_text(errors="replace")
                          for m in re.finditer(r"\{\{#include ([^}:]+)(?::[\w-]+)?\}\}", page)
                          if (folder / m.group(1)).is_file())
    named = sorted({f"./lab {m.group(1)}" + (f" {m.group(2)}" if m.group(1) in ("check", "bench") and m.group(2)
                                             else "")
                    for m in COMMAND.finditer(text) if m.group(1) in KIT_COMMANDS and not in_copy(m.group(1), m.group(2))})
    if not named:
        return page
    note = (f"> **In a student copy** these commands of this page are not there; your instructor's full kit has "
            f"them: {', '.join(f'`{c}`' for c in named)}. The copy runs `{student_usage()}`.\n\n")
    title = re.match(r"(# [^\n]*\n\n?)", page)
    return page[:title.end()] + note + page[title.end():] if title else note + page
