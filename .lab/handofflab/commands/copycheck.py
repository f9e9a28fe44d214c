"""The student copy checks itself before it is handed out: no line of an answer anywhere in it (the
leak scan, HTML read as the reader sees it), and no kit handoff it ships that passes a released lab
when handed in as that lab's class (each graded as a submission)."""
from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path

import grader
from handofflab import catalog, paths
from handofflab.commands.studentcopy import tracked
from handofflab.console import step

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


# A line of an answer gives it away when it is long enough to say something and no other source of
# the kit has it (the Handoff interface's `public T take() …` is everybody's).
_COMMENT = re.compile(r"^(//|/\*|\*|\\\*|\(\*|#|-{4})")


def secret_lines(secret: list[str]) -> dict[str, str]:
    """Each line that only the given kit files have -> the file it betrays."""
    sources = [f for f in tracked() if f not in secret and not f.startswith("grading/tests/")
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


# What a copy's own words may name: `./lab` with a command (and `check`'s subcommand), and a path into the kit's
# folders. A student works in folders of their own (my-buffer/, my-spec/), which the copy cannot hold yet.
_COMMAND = re.compile(r"\./lab ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?")
_PATH = re.compile(r"(?<![\w./-])((?:labs|specs|java|grading|notebooks|book|results)/[\w./*-]*\w)")


def foreign_mentions(target: Path, texts: dict[str, str] | None = None) -> list[str]:
    """Every command and kit file that the copy's own words name and the copy lacks, as 'where: what': its
    README, each lab's handout and rubric (the hints are the handout's), and `texts` (the copy's help, say: name ->
    text). The book's chapters are the full kit's, each with a note at its top naming what a copy lacks
    (copybook), and are not read here."""
    from handofflab.commands.studentcopy import in_copy
    sources = {"README.md": (target / "README.md").read_text()}
    for lab in sorted(p.name for p in (target / "labs").iterdir() if (p / "rubric.toml").exists()):
        for name in ("README.md", "rubric.toml"):
            sources[f"labs/{lab}/{name}"] = (target / "labs" / lab / name).read_text()
    sources.update(texts or {})
    found = []
    for where, text in sources.items():
        for m in _COMMAND.finditer(text):
            command, sub = m.groups()
            if command == "check" and sub is None:
                continue  # `./lab check [OPTIONS]`: the group, whose subcommands the copy lists
            if not in_copy(command, sub):
                found.append(f"{where}: `{m.group(0)}` is not a command of the copy")
        for m in _PATH.finditer(re.sub(r"(?m)^answers = .*$", "", text)):  # a rubric's answers: what is withheld
            path = m.group(1).rstrip(".")
            if "*" in path or path.startswith(("results/", "java/lang/", "java/util/")):
                continue  # a pattern, what a run writes, or a JDK class a design test names
            if not (target / path).exists():
                found.append(f"{where}: `{path}` is not in the copy")
    return sorted(set(found))
