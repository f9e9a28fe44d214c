"""The student copy checks itself before it is handed out: no line of an answer anywhere in it (the
leak scan, HTML read as the reader sees it), and no kit handoff it ships that passes a released lab
when handed in as that lab's class (each graded as a submission)."""
from __future__ import annotations

import hashlib
import html
import json
import re
import tempfile
from pathlib import Path

import grader
from handofflab.ground import catalog, paths, toolchain
from handofflab.commands.studentcopy import tracked
from handofflab.ground.console import step

# The order a shipped class is graded in: the cheapest tests first, since the first mark it loses settles it. The
# server lab's TCP runs are left out (minutes each): a class that passes every other test counts as passing.
_COST = ("design", "junit", "checker", "tlc")


def handoff_classes(folder: Path) -> list[Path]:
    """The public, concrete classes of `folder` that are handoffs: those that implement Handoff, and those that extend
    one that does, however far down (a buffer that extends Ring is one: issue 85 found such a twin shipped)."""
    declared = {}
    for f in folder.glob("*.java"):
        m = re.search(rf"^(?P<mods>(?:public |abstract |final )*)class {f.stem}\b(?:<[^{{]*?>)?"
                      r"(?:\s+extends\s+(?P<parent>\w+))?(?P<rest>[^{]*)\{", f.read_text(), re.M)
        if m:
            declared[f.stem] = (m["mods"], m["parent"], bool(re.search(r"\bimplements\b[^{]*\bHandoff<", m["rest"])), f)

    def is_handoff(name: str, seen: frozenset = frozenset()) -> bool:
        if name not in declared or name in seen:
            return False
        _, parent, implements, _ = declared[name]
        return implements or (parent is not None and is_handoff(parent, seen | {name}))

    return sorted(f for name, (mods, _, _, f) in declared.items()
                  if "public" in mods and "abstract" not in mods and is_handoff(name))


def shipped_answers(target: Path, chosen: list[str], reveal: tuple[str, ...] = ()) -> list[str]:
    """Every kit handoff the copy ships that, renamed as a handoff lab's class and nothing else changed, loses no
    mark of that lab's tests (its TCP runs aside), as 'X.java passes lab L'. Every handoff lab is tried, not only the
    chosen ones: a copy is kept, and the next lab's term must not find its answer in it. A class the catalog knows to
    fail a checker is not tried: the labs' tests run those checkers. Each candidate is graded as a submission, test
    by test, the cheapest first, until it loses a mark. Every lab is tried but those `reveal` names (already graded:
    their answers may be seen); `chosen` is kept for the callers."""
    folder = target / "java" / "handoffs" / "src" / "main" / "java" / "handofflab" / "handoffs"
    failing = {v.java for v in catalog.load().variants.values() if v.java and fails_a_checker(v)}
    candidates = [f for f in handoff_classes(folder) if f.stem not in failing]
    return labs_passed(candidates, folder, target / "specs", reveal)


def fails_a_checker(v: catalog.Variant) -> bool:
    """Whether the catalog knows the variant's class to fail a checker the labs' tests run (Lincheck, stress, JPF):
    such a class loses those marks, so it is never graded as an answer."""
    return any(str(e) != "pass" for k, e in v.expect.items() if k in ("lincheck", "stress", "jpf"))


def labs_passed(candidates: list[Path], folder: Path, specs: Path, reveal: tuple[str, ...] = ()) -> list[str]:
    """Of the handoff classes `candidates` (in `folder`) and the specs in `specs`, each that passes a lab (but those
    `reveal` names) when handed in as its class or spec, as 'X.java passes lab L (…)'; the cheapest test first."""
    cache = _Verdicts()  # the kit's state and the cache file, read once for the whole scan
    found = []
    for lab in sorted(p.parent.name for p in paths.LABS.glob("*/rubric.toml") if p.parent.name not in reveal):
        rubric = grader.load_rubric(lab)
        starter = (paths.LABS / lab / "starter" / rubric.file).read_text()
        if rubric.file.endswith(".tla"):  # a spec lab: every shipped spec written on the starter's variables
            names = re.findall(r"^\s*(\w+) = ", starter.split("(* --algorithm", 1)[-1], re.M)
            for spec in sorted(specs.glob("*.tla")):
                text = spec.read_text()
                if "(* --algorithm" in text and names and all(re.search(rf"\b{n}\b", text) for n in names):
                    module = rubric.file.removesuffix(".tla")
                    as_lab = re.sub(rf"(-+\s*MODULE\s+){spec.stem}\b", rf"\g<1>{module}", text, count=1)
                    found += cache.passes(lab, rubric, spec.name, as_lab)
            continue
        if not re.search(r"\bimplements\s+Handoff<", starter):
            continue  # neither a handoff lab nor a spec lab: its answers (a store, a queue) are no handoff
        package, _, name = rubric.cls.rpartition(".")
        for f in candidates:
            found += cache.passes(lab, rubric, f.name, as_lab_class(f.read_text(), f.stem, package, name, folder))
    return found


def _ancestors(source: str, name: str, folder: Path) -> list[str]:
    """The source files of `name`'s superclasses that are in `folder` (the kit's), nearest first, each once."""
    found, seen, text, cls = [], set(), source, name
    while True:
        m = re.search(rf"\bclass {cls}\b(?:<[^{{]*?>)?\s+extends\s+(\w+)", text)
        parent = m and m[1]
        if not parent or parent in seen or not (folder / f"{parent}.java").exists():
            return found
        seen.add(parent)
        text = (folder / f"{parent}.java").read_text()
        found.append(text)
        cls = parent


# What each shipped file earned as each lab's submission, by the kit it was graded with: a release grades every
# handoff the kit ships against every lab (minutes), and a second release of the same kit need not grade again.
CACHE = paths.ROOT / ".cache" / "shipped-answers.json"


def _kit_state() -> str:
    """The kit as it is: HEAD, and every tracked change on top of it (what a verdict was graded with)."""
    git, need = ["git", "-C", str(paths.ROOT)], "the release reads the kit from git: install git"
    head = toolchain.run([*git, "rev-parse", "HEAD"], "git rev-parse", need, timeout=60).stdout.strip()
    diff = toolchain.run([*git, "diff", "HEAD"], "git diff", need, timeout=60, text=False).stdout
    return head + hashlib.sha256(diff).hexdigest()


class _Verdicts:
    """_graded's answers kept in CACHE under the file's text, the lab and the kit's state (HEAD and its tracked
    changes, read once per scan); an inconclusive one (pending) never is."""

    def __init__(self):
        self.state = _kit_state()
        try:
            self.known = json.loads(CACHE.read_text())
        except (OSError, ValueError):
            self.known = {}

    def passes(self, lab: str, rubric, shipped: str, text: str) -> list[str]:
        """['  F passes lab L …'] if the shipped file F, as the lab's submission, loses no mark of the lab's tests but
        its TCP runs; else []."""
        key = hashlib.sha256(f"{lab}\0{text}\0{self.state}".encode()).hexdigest()
        if key in self.known:
            return [line.replace("{shipped}", shipped) for line in self.known[key]]
        said = _graded(lab, rubric, shipped, text)
        if not any("could not be graded" in line for line in said):
            self.known[key] = [line.replace(shipped, "{shipped}") for line in said]
            CACHE.parent.mkdir(parents=True, exist_ok=True)
            CACHE.write_text(json.dumps(self.known))
        return said


def _graded(lab: str, rubric, shipped: str, text: str) -> list[str]:
    """['  F passes lab L …'] if the shipped file F, as the lab's submission, loses no mark of the lab's tests but its
    TCP runs (graded test by test, the cheapest first, until one loses a mark); else []."""
    tests = sorted((t for t in grader.rubric.data(lab)["test"] if t["kind"] in _COST),
                   key=lambda t: _COST.index(t["kind"]))
    if not tests:
        return []  # nothing here could judge it: said as no pass, never as one
    with step(f"Grading the shipped {shipped} as the {lab} lab's {rubric.file}"), tempfile.TemporaryDirectory() as tmp:
        sub = Path(tmp) / "submission"
        sub.mkdir()
        (sub / rubric.file).write_text(text)
        for i, test in enumerate(tests):
            # the kit's own code, not a student's: graded where the host cannot isolate, too
            g = grader.grade(lab, sub, Path(tmp) / f"out{i}", rubric={**grader.rubric.data(lab), "test": [test]},
                             allow_weak_isolation=True)
            if g.pending:  # unknown is not "loses marks": the copy is not made on a guess
                return [f"  {shipped} as lab {lab}'s {rubric.file} could not be graded ({test['name']}: the machine was "
                        "too busy); release again"]
            if g.score < g.max_score:
                return []
    return [f"  {shipped} passes lab {lab} (every test but its TCP runs)"]


def as_lab_class(source: str, kit_name: str, package: str, name: str, folder: Path | None = None) -> str:
    """A kit handoff as a student who copies it hands it in: renamed into the lab's package, the kit's own step
    log (package-private, for trace validation) taken out, and a constructor taking the size added where the
    class has none (the lab builds its class with one), so that it compiles. A class that extends another of the
    kit's (a buffer on Ring, whose helpers are package-private) brings its ancestors along from `folder`, as classes
    of its own file, as a student who copies it would copy them: nothing else is changed."""
    source = re.sub(rf"\b{kit_name}\b", name, source)
    ancestors = _ancestors(source, name, folder) if folder else []
    if ancestors:
        imports = sorted({line for text in ancestors for line in text.split("\n") if line.startswith("import ")})
        bodies = ["\n".join(line for line in text.split("\n") if not line.startswith(("package ", "import ")))
                  for text in ancestors]
        bodies = [re.sub(r"^public ((?:abstract |final )*class )", r"\1", b, flags=re.M) for b in bodies]
        source = source.replace("package handofflab.handoffs;", "package handofflab.handoffs;\n" + "\n".join(imports), 1)
        source += "\n" + "\n".join(bodies)
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
