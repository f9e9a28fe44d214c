"""`./lab release DIR`: the student copy of the kit, without the answers.

What a student gets: `./lab` (with only the student's commands: check-lab, hint, doctor, and
`check specs` on the specs the copy holds), the
chosen labs' handouts, starters and public tests, the Java that the public tests compile
against, the specs, the book built as HTML, and a dev container (devcontainer's). What they do not get:
- each lab's answers: the files its rubric names in `answers` (the kit's MonitorBuffer is the
  buffer lab's answer, specs/Pipes.tla the pipes-spec lab's); in the book their listings, and
  every counterexample that quotes their lines, become a note saying they are withheld;
- the grader's tests (grading/tests/: reference solutions, buggy samples) and the kit's own tests;
- the classes the hidden tests run (the mutants lab's hidden mutants), and every class that
  cannot compile without a withheld one (all the PHT variants extend ParallelHashTable).
And no kit handoff the copy ships answers a released lab: each is graded as that lab's class, as a student
who copies it would hand it in (shipped_answers), and must lose a mark.
A lab whose public checks need another chosen lab's answer cannot share its copy: the mutants
lab runs MonitorBuffer, the buffer lab's answer. Release them one at a time, as a course would.

Here: what the copy holds and leaves out (plan), and the copying; its book is copybook's, and the
checks it passes before it is handed out (the leak scan, the shipped classes graded) are copycheck's."""
from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import grader
from handofflab.ground import catalog, paths
from handofflab.commands import copybook, copycheck, devcontainer
from handofflab.commands.studentcopy import MARKER, tracked
from handofflab.ground.console import LabError, ok, step, warn

# The Java modules the public tests compile against (java/pom.xml is cut down to these).
MODULES = ("handoffs", "calendar", "dht", "checks")  # checks also runs Lincheck on the calendar's lists, the probe on a DHT queue
# Kit files every copy holds, besides the chosen labs: whole files by name, folders (ending in '/') by prefix.
# Never a bare prefix: "lab" (the script) once matched every folder of labs/, so a one-lab copy held all seven.
ALWAYS_FILES = ("lab", "pyproject.toml", "requirements.lock", ".gitignore", "labs/allowed-api.toml") \
    + tuple(f"java/{m}/pom.xml" for m in MODULES)
ALWAYS_FOLDERS = (".lab/handofflab/", "grading/grader/", "specs/") + tuple(f"java/{m}/src/main/" for m in MODULES)


def always(f: str) -> bool:
    """Whether every copy holds the kit's tracked file f, whatever labs it is for."""
    return f in ALWAYS_FILES or f.startswith(ALWAYS_FOLDERS)
NEVER = ("specs/tests/", "grading/tests/", ".lab/tests/")
def labs() -> list[str]:
    return sorted(p.parent.name for p in paths.LABS.glob("*/rubric.toml"))


def _warn_untracked(wanted) -> list[str]:
    """The copy is what git tracks: a new file the copy would hold, not yet added, would silently be missing."""
    new = [f for f in tracked("--others", "--exclude-standard") if wanted(f)]
    if new:
        warn(f"{len(new)} new file(s) that git does not track are NOT in the copy (`git add` them first):\n"
             + "\n".join("  " + f for f in new[:20]))
    return new


# One pass, leftmost first: a "//" inside a string (a URL) is no comment, and a quote inside a comment opens no string.
_LITERALS_AND_COMMENTS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)


def _code(text: str) -> str:
    """Java without its comments and string literals: what a class really refers to."""
    return _LITERALS_AND_COMMENTS.sub(lambda m: '""' if m.group(0)[0] in "\"'" else " ", text)


def plan(chosen: list[str], reveal: tuple[str, ...] = ()) -> tuple[dict[str, str], set[str]]:
    """(secret kit path -> the lab it answers, every kit path the copy leaves out). Every lab's answers are secret,
    not only the chosen labs': a term that releases one lab after another must not hand out the later answers with
    the first copy. `reveal`: labs whose answers may be seen (a lab already graded), which the copy then ships."""
    unknown = sorted((set(chosen) | set(reveal)) - set(labs()))
    if unknown:
        raise LabError(f"no lab called {', '.join(unknown)}", f"labs: {', '.join(labs())}")
    both = sorted(set(chosen) & set(reveal))
    if both:
        raise LabError(f"the copy is for {', '.join(both)} and reveals its answers too",
                       "reveal only labs already graded, never one the copy is for")
    cat = catalog.load()
    files = tracked()

    def java_file(variant: str) -> str:
        cls = cat.variant(variant).java
        return next(f for f in files if f.endswith(f"/handofflab/handoffs/{cls}.java"))

    secret: dict[str, str] = {}
    left_out: set[str] = set()
    for lab in [lab for lab in labs() if lab not in reveal]:
        rubric = grader.load_rubric(lab)
        for f in rubric.answers:
            if f not in files:
                raise LabError(f"labs/{lab}/rubric.toml: answers names '{f}', which is no file of the kit",
                               "answers are paths from the kit's root, e.g. java/handoffs/src/main/java/…/X.java")
            secret[f] = f"{secret[f]}* and *{lab}" if f in secret else lab  # MonitorBuffer answers buffer and server
    for lab in chosen:  # the handoffs the hidden tests run are hidden too: a student must not test against them
        left_out |= {java_file(t.handoff) for t in grader.load_rubric(lab).tests if t.hidden and t.handoff}
    for lab in chosen:
        for t in grader.load_rubric(lab).tests:
            for name in (t.handoff, t.like):
                if name and not t.hidden and java_file(name) in secret:
                    owners = secret[java_file(name)].split("* and *")
                    owner = next((o for o in owners if o in chosen), owners[0])
                    if owner in chosen:
                        raise LabError(f"the labs {lab} and {owner} cannot share a student copy: {lab}'s public test "
                                       f"'{t.name}' runs {name}, the answer to {owner}",
                                       f"release them one at a time: ./lab release DIR --lab {owner}, then, once "
                                       f"{owner} is graded, ./lab release DIR2 --lab {lab} --reveal {owner}")
                    raise LabError(f"the lab {lab}'s public test '{t.name}' runs {name}, the answer to "
                                   f"{' and '.join(owners)}, which every copy withholds until that lab is graded",
                                   f"once {' and '.join(owners)} are graded: ./lab release DIR --lab {lab} "
                                   + " ".join(f"--reveal {o}" for o in owners))
    left_out |= set(secret)
    # every class that cannot compile without a left-out one goes too (until nothing changes)
    java = {f: _code((paths.ROOT / f).read_text()) for f in files if f.endswith(".java")
            and any(f.startswith(f"java/{m}/src/main/") for m in MODULES)}
    because: dict[str, str] = {}  # a class left out -> the left-out class it needs
    while True:
        gone = {Path(f).stem: f for f in left_out if f.endswith(".java")}
        more = {}
        for f, code in java.items():
            need = None if f in left_out else next((g for g in gone if re.search(rf"\b{re.escape(g)}\b", code)), None)
            if need:
                more[f] = gone[need]
        if not more:
            break
        left_out |= set(more)
        because.update(more)
    _refuse_labs_that_need_what_is_left_out(chosen, secret, left_out, because)
    return secret, left_out


def _refuse_labs_that_need_what_is_left_out(chosen: list[str], secret: dict[str, str], left_out: set[str],
                                            because: dict[str, str]) -> None:
    """A lab whose starter or public tests name a kit class the copy leaves out would not compile in it: the database
    lab's DatabaseFolders keeps its entities in EventStore, the calendar lab's answer. Refused, with the chain named."""
    gone = {Path(f).stem: f for f in left_out if f.endswith(".java")}
    for lab in chosen:
        for p in [*sorted((paths.LABS / lab / "starter").glob("*.java")), *sorted((paths.LABS / lab / "public").glob("*.java"))]:
            code = _code(p.read_text())
            need = next((g for g in sorted(gone) if re.search(rf"\b{re.escape(g)}\b", code)), None)
            if not need:
                continue
            chain, f = [need], gone[need]
            while f in because:
                f = because[f]
                chain.append(Path(f).stem)
            owner = secret.get(f)
            why = f"the answer to {owner}" if owner else "a class a hidden test runs"
            via = "".join(f", which needs {c}" for c in chain[1:])
            first = (owner or lab).split("* and *")[0]
            raise LabError(f"the lab {lab} cannot be in this student copy: {p.relative_to(paths.ROOT)} needs "
                           f"{chain[0]}{via}, {why}",
                           (f"release them one at a time: ./lab release DIR --lab {first}, then, once it is graded, "
                            f"./lab release DIR2 --lab {lab} --reveal {first}") if first in chosen else
                           (f"once {first} is graded: ./lab release DIR --lab {lab} --reveal {first}") if owner else
                           f"release {lab} in a copy of its own")


def release(target: Path, chosen: list[str] | None = None, book: bool = True, reveal: tuple[str, ...] = ()) -> Path:
    """The student copy of the chosen labs in `target`, without any lab's answer but those of the labs `reveal`
    names (labs already graded). `book=False` leaves the book out (a test that reads only the copy's files spares
    mdBook's build)."""
    if not chosen:
        raise LabError("name the labs the copy is for", f"./lab release DIR --lab LAB [--lab LAB …]; labs: {', '.join(labs())}")
    chosen = sorted(set(chosen))
    target = target.resolve()
    if target.exists() and any(target.iterdir()):
        raise LabError(f"{target} exists and is not empty", "name a new folder: the copy never overwrites")
    if target.is_relative_to(paths.ROOT):
        raise LabError(f"{target} is inside the kit", "make the student copy outside it, e.g. ../handoff-lab-student")
    secret, left_out = plan(chosen, tuple(reveal))
    files = tracked()
    wanted = lambda f: (f not in left_out and not f.startswith(NEVER) and "/src/test/" not in f  # noqa: E731
                        and (always(f) or any(f.startswith(f"labs/{lab}/") for lab in chosen)))
    keep = [f for f in files if wanted(f)]
    _warn_untracked(wanted)
    with step(f"Copying {len(keep)} files of the kit into {target}"):
        for f in keep:
            dst = target / f
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(paths.ROOT / f, dst)
        _cut_pom(paths.JAVA / "pom.xml", target / "java" / "pom.xml", MODULES)
        # the labs as an IDE opens them: every kit module the full labs/pom.xml builds them on, and the chosen labs
        kit = [m for m in _modules(paths.LABS / "pom.xml") if m.startswith("../java/")]
        _cut_pom(paths.LABS / "pom.xml", target / "labs" / "pom.xml",
                 [*kit, *(lab for lab in chosen if (paths.LABS / lab / "pom.xml").exists())])
    if book:
        with step("Building the book without the answers"):
            copybook.build(target / "book", secret)
    for lab in chosen:  # the copy's words name only what it has: its rubrics do not list the answers it withholds
        rubric_file = target / "labs" / lab / "rubric.toml"
        rubric_file.write_text(without_answers(rubric_file.read_text()))
    (target / MARKER).write_text(
        "# A student copy of Handoff Lab, made by `./lab release`: `./lab` offers the student's commands only.\n"
        f"labs = {json.dumps(chosen)}\nwithheld = {json.dumps(sorted(left_out))}\n")
    (target / "README.md").write_text(_readme(chosen, book))
    for name, text in devcontainer.files(chosen).items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_text(text)
    references = [f for f in files if f.startswith("grading/tests/submissions/") and "/correct/" in f
                  and any(f.startswith(f"grading/tests/submissions/{lab}/") for lab in chosen)]
    found = copycheck.leaks(target, copycheck.secret_lines([*secret, *references]))
    if found:  # the copy checks itself: a new include or file must not carry an answer out
        raise LabError(f"the student copy in {target} still holds answers; delete it:\n" + "\n".join(found[:20]),
                       "leave the file out (a lab's `answers`) or withhold the book page that includes it")
    passing = copycheck.shipped_answers(target, chosen, tuple(reveal))
    if passing:
        raise LabError(f"the student copy in {target} ships kit classes that pass a released lab, renamed as the "
                       "lab's class; delete the copy:\n" + "\n".join(passing),
                       "add the file to that lab's `answers` in labs/LAB/rubric.toml (it is then withheld, with every "
                       "class that needs it), or release the lab in a copy of its own")
    ok(f"student copy in {target}: {len(chosen)} lab(s), {len(secret)} answer file(s) and "
       f"{len(left_out) - len(secret)} file(s) that need them or that hidden tests run left out")
    return target


def without_answers(rubric_text: str) -> str:
    """A rubric's TOML without its `answers` (the kit's files the copy withholds) and the comment above them: the grader
    does not read them, and a copy names only what it holds. The rest is the instructor's text, as written."""
    cut = re.sub(r"(?m)(?:^#[^\n]*\n)*^answers = \[[^\]]*\][^\n]*\n", "", rubric_text, count=1)
    grader.rubric.parse(tomllib.loads(cut), "the copy's rubric")  # still the same rubric
    return cut


def _modules(pom: Path) -> list[str]:
    return re.findall(r"<module>([^<]+)</module>", pom.read_text())


def _cut_pom(source: Path, pom: Path, keep) -> None:
    text = source.read_text()
    modules = "".join(f"    <module>{m}</module>\n" for m in keep)
    cut, n = re.subn(r"(<modules>\n).*?(\s*</modules>)", lambda m: m.group(1) + modules.rstrip("\n") + m.group(2),
                     text, flags=re.S)
    if n != 1:
        raise LabError(f"{paths.shown(source)} has no <modules> list to cut down",
                       f"restore it with git checkout {paths.shown(source)}")
    pom.write_text(cut)


def _readme(chosen: list[str], book: bool = True) -> str:
    rows = "\n".join(f"| `{lab}` | {grader.load_rubric(lab).title} | `labs/{lab}/README.md` |" for lab in chosen)
    return f"""# Handoff Lab — student copy

Your labs:

| lab | title | handout |
|---|---|---|
{rows}

Two commands do everything:

```sh
./lab check-lab LAB my-folder            # every check that grades you, with the grader's own code (--watch: on every save)
./lab hint LAB                           # the handout's hints, one at a time
```

`check-lab` runs the lab's public tests and its checkers (Lincheck, the stress watchdog, trace validation,
TLC, the probes), draws any counterexample as swimlanes, and names each test it leaves to your instructor
with the reason (a test that would hand over an answer or the test set). Its quick mode cuts only the
stress runs' length; `--full` runs them as long as grading does. `./lab check specs NAME` runs TLC on a
model of the book, `./lab check specs --file SPEC.tla` on a spec of your own.

`./lab doctor` says what the machine has; the first `./lab` installs what is missing. It needs a JDK 17,
Maven and Python 3.11 (on Debian: `sudo apt-get install openjdk-17-jdk-headless maven python3-venv`).
**Or open this folder in a dev container** (`.devcontainer/`: VS Code's "Reopen in Container", or a
cloud workspace): it is a Debian machine with all of them, the editor's TLA+, Java, Python and Jupyter
extensions, and `./lab` set up when it is made.
{"The book is `book/index.html` (open it in a browser). " if book else ""}This copy holds none of the labs' answers.
"""


