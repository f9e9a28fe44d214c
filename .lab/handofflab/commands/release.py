"""`./lab release DIR`: the student copy of the kit, without the answers.

What a student gets: `./lab` (with only the student's commands: check-lab, hint, doctor, and
`check specs` on the specs the copy holds), the
chosen labs' handouts, starters and public tests, the Java that the public tests compile
against, the specs, and the book built as HTML. What they do not get:
- each lab's answers: the files its rubric names in `answers` (the kit's MonitorBuffer is the
  buffer lab's answer, specs/Pipes.tla the pipes-spec lab's); in the book their listings, and
  every counterexample that quotes their lines, become a note saying they are withheld;
- the grader's tests (grading/tests/: reference solutions, buggy samples) and the kit's own tests;
- the classes the hidden tests run (the mutants lab's hidden mutants), and every class that
  cannot compile without a withheld one (all the PHT variants extend ParallelHashTable).
And no kit handoff the copy ships answers a released lab: each is graded as that lab's class, as a student
who copies it would hand it in (shipped_answers), and must lose a mark.
A lab whose public checks need another chosen lab's answer cannot share its copy: the mutants
lab runs MonitorBuffer, the buffer lab's answer. Release them one at a time, as a course would."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import grader
from handofflab import book, catalog, paths, toolchain
from handofflab.commands.studentcopy import KIT_COMMANDS, MARKER, in_copy, student_usage
from handofflab.console import LabError, ok, step, warn

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
# A book page that includes one of these, or quotes one of their lines, is withheld in the copy.
NOTE = ("> **Withheld in the student copy.** This listing answers the lab(s) *{lab}*; "
        "your instructor's full kit has it.\n")


def labs() -> list[str]:
    return sorted(p.parent.name for p in paths.LABS.glob("*/rubric.toml"))


def _tracked(*which: str) -> list[str]:
    """The kit's files git tracks (or, with "--others", the new ones it does not yet)."""
    proc = toolchain.run(["git", "-C", str(paths.ROOT), "ls-files", *which], "git ls-files",
                         "`./lab release` copies the kit's tracked files: run it in a git clone of the kit",
                         timeout=60, check=False)
    if proc.returncode != 0:
        raise LabError("`./lab release` copies the kit's tracked files, and this is no git checkout",
                       "run it in a clone of the kit")
    return proc.stdout.split()


def _warn_untracked(wanted) -> list[str]:
    """The copy is what git tracks: a new file the copy would hold, not yet added, would silently be missing."""
    new = [f for f in _tracked("--others", "--exclude-standard") if wanted(f)]
    if new:
        warn(f"{len(new)} new file(s) that git does not track are NOT in the copy (`git add` them first):\n"
             + "\n".join("  " + f for f in new[:20]))
    return new


# One pass, leftmost first: a "//" inside a string (a URL) is no comment, and a quote inside a comment opens no string.
_LITERALS_AND_COMMENTS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)


def _code(text: str) -> str:
    """Java without its comments and string literals: what a class really refers to."""
    return _LITERALS_AND_COMMENTS.sub(lambda m: '""' if m.group(0)[0] in "\"'" else " ", text)


def plan(chosen: list[str]) -> tuple[dict[str, str], set[str]]:
    """(secret kit path -> the lab it answers, every kit path the copy leaves out)."""
    unknown = sorted(set(chosen) - set(labs()))
    if unknown:
        raise LabError(f"no lab called {', '.join(unknown)}", f"labs: {', '.join(labs())}")
    cat = catalog.load()
    tracked = _tracked()

    def java_file(variant: str) -> str:
        cls = cat.variant(variant).java
        return next(f for f in tracked if f.endswith(f"/handofflab/handoffs/{cls}.java"))

    secret: dict[str, str] = {}
    left_out: set[str] = set()
    for lab in chosen:
        rubric = grader.load_rubric(lab)
        for f in rubric.answers:
            if f not in tracked:
                raise LabError(f"labs/{lab}/rubric.toml: answers names '{f}', which is no file of the kit",
                               "answers are paths from the kit's root, e.g. java/handoffs/src/main/java/…/X.java")
            secret[f] = f"{secret[f]}* and *{lab}" if f in secret else lab  # MonitorBuffer answers buffer and server
        # the handoffs the hidden tests run are hidden too: a student must not test against them
        left_out |= {java_file(t.handoff) for t in rubric.tests if t.hidden and t.handoff}
    for lab in chosen:
        for t in grader.load_rubric(lab).tests:
            for name in (t.handoff, t.like):
                if name and not t.hidden and java_file(name) in secret:
                    owner = secret[java_file(name)].split("* and *")[0]
                    raise LabError(f"the labs {lab} and {owner} cannot share a student copy: {lab}'s public test "
                                   f"'{t.name}' runs {name}, the answer to {owner}",
                                   f"release them one at a time: ./lab release DIR --lab {owner}, then --lab {lab} "
                                   "once its answer may be seen")
    left_out |= set(secret)
    # every class that cannot compile without a left-out one goes too (until nothing changes)
    java = {f: _code((paths.ROOT / f).read_text()) for f in tracked if f.endswith(".java")
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
            raise LabError(f"the lab {lab} cannot be in this student copy: {p.relative_to(paths.ROOT)} needs "
                           f"{chain[0]}{via}, {why}",
                           f"release them one at a time: ./lab release DIR --lab {(owner or lab).split('* and *')[0]}, "
                           f"then --lab {lab} in a copy of its own")


def release(target: Path, chosen: list[str] | None = None) -> Path:
    if not chosen:
        raise LabError("name the labs the copy is for", f"./lab release DIR --lab LAB [--lab LAB …]; labs: {', '.join(labs())}")
    chosen = sorted(set(chosen))
    target = target.resolve()
    if target.exists() and any(target.iterdir()):
        raise LabError(f"{target} exists and is not empty", "name a new folder: the copy never overwrites")
    if target.is_relative_to(paths.ROOT):
        raise LabError(f"{target} is inside the kit", "make the student copy outside it, e.g. ../handoff-lab-student")
    secret, left_out = plan(chosen)
    tracked = _tracked()
    wanted = lambda f: (f not in left_out and not f.startswith(NEVER) and "/src/test/" not in f  # noqa: E731
                        and (always(f) or any(f.startswith(f"labs/{lab}/") for lab in chosen)))
    keep = [f for f in tracked if wanted(f)]
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
    with step("Building the book without the answers"):
        _book(target / "book", secret)
    (target / MARKER).write_text(
        "# A student copy of Handoff Lab, made by `./lab release`: `./lab` offers the student's commands only.\n"
        f"labs = {json.dumps(chosen)}\nwithheld = {json.dumps(sorted(left_out))}\n")
    (target / "README.md").write_text(_readme(chosen))
    references = [f for f in tracked if f.startswith("grading/tests/submissions/") and "/correct/" in f
                  and any(f.startswith(f"grading/tests/submissions/{lab}/") for lab in chosen)]
    found = leaks(target, secret_lines([*secret, *references]))
    if found:  # the copy checks itself: a new include or file must not carry an answer out
        raise LabError(f"the student copy in {target} still holds answers; delete it:\n" + "\n".join(found[:20]),
                       "leave the file out (a lab's `answers`) or withhold the book page that includes it")
    passing = shipped_answers(target, chosen)
    if passing:
        raise LabError(f"the student copy in {target} ships kit classes that pass a released lab, renamed as the "
                       "lab's class; delete the copy:\n" + "\n".join(passing),
                       "add the file to that lab's `answers` in labs/LAB/rubric.toml (it is then withheld, with every "
                       "class that needs it), or release the lab in a copy of its own")
    ok(f"student copy in {target}: {len(chosen)} lab(s), {len(secret)} answer file(s) and "
       f"{len(left_out) - len(secret)} file(s) that need them or that hidden tests run left out")
    return target


# The order a shipped class is graded in: the cheapest tests first, since the first mark it loses settles it. The
# server lab's TCP runs are left out (minutes each): a class that passes every other test counts as passing.
_COST = ("design", "junit", "checker")


def shipped_answers(target: Path, chosen: list[str]) -> list[str]:
    """Every kit handoff the copy ships that, renamed as a chosen lab's class and nothing else changed, loses no
    mark of that lab's tests (its TCP runs aside), as 'X.java passes lab L'. A class the catalog knows to fail a
    checker is not tried: the lab's tests run those checkers. Each candidate is graded as a submission, test by
    test, the cheapest first, until it loses a mark."""
    folder = target / "java" / "handoffs" / "src" / "main" / "java" / "handofflab" / "handoffs"
    failing = {v.java for v in catalog.load().variants.values()
               if v.java and any(str(e) != "pass" for k, e in v.expect.items() if k in ("lincheck", "stress", "jpf"))}
    candidates = sorted(f for f in folder.glob("*.java") if f.stem not in failing
                        and re.search(rf"^public (?:final )?class {f.stem}\b[^{{]*\bimplements\b[^{{]*\bHandoff<",
                                      f.read_text(), re.M))
    found = []
    for lab in chosen:
        rubric = grader.load_rubric(lab)
        starter = (paths.LABS / lab / "starter" / rubric.file).read_text()
        if not re.search(r"\bimplements\s+Handoff<", starter):
            continue  # not a handoff lab: no kit handoff answers it
        package, _, name = rubric.cls.rpartition(".")
        tests = sorted((t for t in grader.rubric.data(lab)["test"] if t["kind"] in _COST),
                       key=lambda t: _COST.index(t["kind"]))
        for f in candidates:
            with step(f"Grading the shipped {f.name} as the {lab} lab's {name}"), \
                    tempfile.TemporaryDirectory() as tmp:
                sub = Path(tmp) / "submission"
                sub.mkdir()
                (sub / rubric.file).write_text(as_lab_class(f.read_text(), f.stem, package, name))
                for i, test in enumerate(tests):
                    # the kit's own code, not a student's: graded where the host cannot isolate, too
                    g = grader.grade(lab, sub, Path(tmp) / f"out{i}", rubric={**grader.rubric.data(lab), "test": [test]},
                                     allow_weak_isolation=True)
                    if g.pending:  # unknown is not "loses marks": the copy is not made on a guess
                        found.append(f"  {f.name} as lab {lab}'s class could not be graded ({test['name']}: the machine "
                                     "was too busy); release again")
                    if g.pending or g.score < g.max_score:
                        break
                else:
                    found.append(f"  {f.name} passes lab {lab} (every test but its TCP runs)")
    return found


def as_lab_class(source: str, kit_name: str, package: str, name: str) -> str:
    """A kit handoff as a student who copies it hands it in: renamed into the lab's package, the kit's own step
    log (package-private, for trace validation) taken out, and a constructor taking the size added where the
    class has none (the lab builds its class with one), so that it compiles. Nothing else is changed."""
    source = re.sub(rf"\b{kit_name}\b", name, source)
    source = source.replace("package handofflab.handoffs;", f"package {package};\n\nimport handofflab.handoffs.*;", 1)
    source = re.sub(r",\s*Stepped\b|\bStepped\s*,\s*", "", source)
    source = re.sub(r"(?:[ \t]*/\*\*(?:(?!\*/).)*?\*/\s*)?[ \t]*@Override\s+public void recordSteps\(StepLog \w+\) \{.*?\n    \}\n",
                    "", source, flags=re.S)
    source = "\n".join(line for line in source.split("\n") if "StepLog" not in line and "steps.step(" not in line)
    if not re.search(rf"\b{name}\(int \w+\)", source):
        source = re.sub(rf"(class {name}\b[^{{]*\{{\n)", rf"\1    public {name}(int size) {{\n    }}\n\n", source, count=1)
    return source


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


def _book(out: Path, secret: dict[str, str]) -> None:
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


def _readme(chosen: list[str]) -> str:
    rows = "\n".join(f"| `{lab}` | {grader.load_rubric(lab).title} | `labs/{lab}/README.md` |" for lab in chosen)
    return f"""# Handoff Lab — student copy

Your labs:

| lab | title | handout |
|---|---|---|
{rows}

Two commands do everything:

```sh
./lab check-lab LAB my-folder            # the lab's public tests, in seconds (--watch: again on every save)
./lab hint LAB                           # the handout's hints, one at a time
```

`./lab doctor` says what the machine has; the first `./lab` installs what is missing.
The book is `book/index.html` (open it in a browser). Your instructor grades with the hidden tests;
this copy has the public ones only, and none of the labs' answers.
"""


# A line of an answer gives it away when it is long enough to say something and no other source of
# the kit has it (the Handoff interface's `public T take() …` is everybody's).
_COMMENT = re.compile(r"^(//|/\*|\*|\\\*|\(\*|#|-{4})")


def secret_lines(secret: list[str]) -> dict[str, str]:
    """Each line that only the given kit files have -> the file it betrays."""
    tracked = _tracked()
    sources = [f for f in tracked if f not in secret and not f.startswith("grading/tests/")
               and f.endswith((".java", ".tla")) and ("/src/main/" in f or f.startswith(("specs/", "labs/")))]
    common = {line.strip() for f in sources for line in (paths.ROOT / f).read_text(errors="replace").splitlines()}
    lines = {}
    for f in secret:
        for line in (paths.ROOT / f).read_text(errors="replace").splitlines():
            line = line.strip()
            if len(line) >= 20 and not _COMMENT.match(line) and line not in common:
                lines[line] = f
    return lines


def leaks(folder: Path, lines: dict[str, str]) -> list[str]:
    """Where in `folder` (a copy, or a built book) a secret line appears: in any text file, HTML
    read as the reader sees it (tags gone, entities decoded)."""
    found = []
    for p in sorted(folder.rglob("*")):
        if not p.is_file() or p.suffix in (".png", ".woff", ".woff2", ".ttf", ".ico", ".jar", ".class"):
            continue
        text = p.read_text(errors="replace")
        if p.suffix in (".html", ".js", ".json"):
            text = html.unescape(re.sub(r"<[^>]+>", "", text.replace("\\n", "\n").replace('\\"', '"')))
        seen = {line.strip() for line in text.splitlines()}
        found += [f"{p.relative_to(folder)}: a line of {lines[line]}: {line}" for line in lines if line in seen]
    return found
