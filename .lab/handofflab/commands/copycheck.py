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
