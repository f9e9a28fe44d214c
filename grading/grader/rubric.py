"""A lab's rubric (labs/LAB/rubric.toml), typed and validated: closed keys at every level, so a
misspelt key or an unknown kind is named with its place instead of being ignored. Every other
part of the grader reads a `Rubric`, never the TOML."""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace

from handofflab.ground import catalog, paths
from handofflab.ground.console import LabError

# The keys each kind of test may have, besides name, kind, points and hidden.
KIND_KEYS = {
    "junit": {"method"},                       # a public JUnit test of the lab, by method name
    "checker": {"checker", "like", "seconds"},  # the kit's checkers on the submitted class, checked
                                                #   like a catalogued variant (its check profile)
    "tlc": {"variant"},                        # TLC on the submitted spec with a catalogued cfg
    "mutants": {"handoff"},                    # the submitted tests against one of the kit's handoffs
    "server": {"check", "target"},             # the submitted handoff in the kit's server, under load
    "dht": {"check", "target"},                # the submitted completion queue in the kit's DHT, p processes
    "design": {"calls", "avoid", "unlocked", "covers", "why"},       # the lab's design, read from the bytecode (grader/kinds/design.py)
}
REQUIRED = {"junit": {"method"}, "checker": {"checker", "like"}, "tlc": {"variant"}, "mutants": {"handoff"},
            "server": {"check"}, "dht": {"check"}, "design": {"why"}}
TEST_KEYS = {"name", "kind", "points", "hidden", "withheld"}
# `hidden`: Gradescope shows the test's feedback only once grades are published (a name that starts "hidden"
# is hidden unless it says otherwise). It does not keep the test from the student: `./lab check-lab` runs every
# test of the rubric on the student's work, with the grader's own code, but those that say `withheld = "why"`:
# a test that would hand over an answer or the test set (the mutants lab's hidden mutants, a run beside the
# kit's own answer), said to the student with its reason.
TOP_KEYS = {"lab", "title", "file", "class", "api", "forbid", "methods", "spec", "server", "dht", "hints", "answers",
            "test"}
SPEC_KEYS = {"reference", "knobs", "refinement", "shared", "breakers", "breaks"}
SERVER_KEYS = {"design", "t_r", "workers", "slots", "children", "requests", "runs",
               "fill_workers", "fill_slots", "fill_requests"}
SERVER_CHECKS = {"exactly-once", "efficiency"}   # the dht kind's checks too
DHT_KEYS = {"processes", "pattern", "values", "n", "L", "q", "runs"}
# What a failure can be, for the lab's own hints: `[hints]` maps each to the number of the
# hint in the lab's handout (labs/LAB/README.md, "## Hints") that feedback points to.
HINT_TOPICS = {"deadlock", "spin", "invented", "overfull", "duplicate", "loss", "slow", "unlocked", "coarse", "early", "kept",
               "two_locks"}


class RubricError(LabError):
    """The rubric is wrong, not a submission: nobody can be graded with it. `./lab grade`'s code for "the grader
    failed" (3), so that a batch, an export or an autograder never turns it into a student's lost marks."""

    exit_code = 3


@dataclass(frozen=True)
class TestSpec:
    name: str
    kind: str
    points: float
    hidden: bool
    withheld: str = ""            # why `./lab check-lab` does not run it ("": the student runs it)
    method: str = ""
    checkers: tuple[str, ...] = ()
    like: str | None = None
    seconds: float | None = None
    variant: str = ""
    handoff: str = ""
    check: str = ""
    target: float = 0.0
    calls: tuple[str, ...] = ()   # design: what the design calls ("owner.name", alternatives joined by "|")
    avoid: tuple[str, ...] = ()   # design: class-name prefixes the design does without
    unlocked: tuple[str, ...] = ()  # design: methods that do not do the design's work under one lock
    covers: tuple[str, ...] = ()    # design: what that work calls (class-name prefixes); none: any lock on this
    why: str = ""                 # design: what the lab asks for, said when it is missing


@dataclass(frozen=True)
class Rubric:
    lab: str
    title: str
    file: str
    cls: str                     # the submitted class's name ("" for a spec lab)
    api: str
    forbid: tuple[str, ...]
    tests: tuple[TestSpec, ...]
    spec: dict = field(default_factory=dict)
    server: dict = field(default_factory=dict)
    hints: dict = field(default_factory=dict)
    answers: tuple[str, ...] = ()  # the kit's files that answer the lab: `./lab release` leaves them out
    dht: dict = field(default_factory=dict)
    # a lab whose class extends a kit class: the methods the submission writes; every other method it declares is
    # private (its helpers), so that it cannot answer for the kit's methods the judge reads
    methods: tuple[str, ...] = ()

    def of_kind(self, kind: str) -> list[int]:
        """Positions of the tests of one kind."""
        return [i for i, t in enumerate(self.tests) if t.kind == kind]

    def public(self) -> Rubric:
        """The rubric with its public tests only (those Gradescope shows at once)."""
        return replace(self, tests=tuple(t for t in self.tests if not t.hidden))

    def for_student(self) -> Rubric:
        """The rubric with every test the student runs before submitting (`./lab check-lab`): all but the withheld."""
        return replace(self, tests=tuple(t for t in self.tests if not t.withheld))

    @property
    def withheld(self) -> list[TestSpec]:
        """The tests only the instructor's grading runs, each with its `withheld` reason."""
        return [t for t in self.tests if t.withheld]

    @property
    def kinds(self) -> set[str]:
        return {t.kind for t in self.tests}


def data(lab: str) -> dict:
    """The rubric as its TOML says it (for a test that grades with a changed copy)."""
    path = paths.LABS / lab / "rubric.toml"
    if not path.exists():
        known = sorted(p.parent.name for p in paths.LABS.glob("*/rubric.toml"))
        raise LabError(f"no lab called '{lab}'", f"labs with a rubric: {', '.join(known)}")
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise LabError(f"labs/{lab}/rubric.toml is not valid TOML: {e}", "fix the line it names") from None


def load(lab: str) -> Rubric:
    return parse(data(lab), f"labs/{lab}/rubric.toml")


def parse(raw: dict, where: str) -> Rubric:
    """A Rubric from TOML data, or a LabError naming the first key that is wrong and where."""
    def fail(what: str, fix: str):
        raise RubricError(f"{where}: {what}", fix)

    _closed(raw, TOP_KEYS, "the rubric", fail)
    for key in ("lab", "title", "file"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            fail(f"`{key}` is missing (a string)", f"top-level keys: {', '.join(sorted(TOP_KEYS))}")
    tests = tuple(_test(t, i, fail) for i, t in enumerate(raw.get("test", []), 1))
    if not tests:
        fail("no [[test]]", "a rubric lists its tests as [[test]] tables")
    if raw["file"].endswith(".java") and not raw.get("class"):
        fail("`class` is missing: a Java lab names the submitted class", 'class = "handofflab.labs.LAB.Name"')
    _closed(raw.get("spec", {}), SPEC_KEYS, "[spec]", fail)
    spec = raw.get("spec", {})
    if ("breakers" in spec) != ("breaks" in spec) or not isinstance(spec.get("breaks", []), list) \
            or not all(isinstance(p, str) and p.isidentifier() for p in spec.get("breaks", [])):
        fail("[spec] breakers (a module of the lab's folder) and breaks (the properties it breaks, one each) go "
             "together", 'breakers = "PropertyBreakers.tla", breaks = ["NoDuplicate", "NoInvented"]')
    if "breakers" in spec and not (paths.LABS / raw["lab"] / spec["breakers"]).is_file():
        fail(f"[spec] breakers = '{spec['breakers']}' is no file of labs/{raw['lab']}/",
             "name the module, in the lab's folder, whose `Break` constant breaks each property alone")
    _closed(raw.get("server", {}), SERVER_KEYS, "[server]", fail)
    _closed(raw.get("dht", {}), DHT_KEYS, "[dht]", fail)
    if "dht" in {t.kind for t in tests} and set(raw.get("dht", {})) != DHT_KEYS:
        fail(f"[dht] needs {', '.join(sorted(DHT_KEYS - set(raw.get('dht', {}))))}", "see labs/dht/rubric.toml")
    if "tlc" in {t.kind for t in tests} and "reference" not in raw.get("spec", {}):
        fail("tlc tests need [spec] reference (the kit's spec to cross with)", 'reference = "Pipes"')
    if "server" in {t.kind for t in tests} and set(raw.get("server", {})) != SERVER_KEYS:
        fail(f"[server] needs {', '.join(sorted(SERVER_KEYS - set(raw.get('server', {}))))}",
             "see labs/server/rubric.toml")
    hints = raw.get("hints", {})
    _closed(hints, HINT_TOPICS, "[hints]", fail)
    if any(not isinstance(n, int) or n < 1 for n in hints.values()):
        fail("[hints] values are hint numbers (1, 2, …)", "e.g. deadlock = 2")
    answers = raw.get("answers", [])
    if not isinstance(answers, list) or not all(isinstance(a, str) and a for a in answers):
        fail("`answers` is a list of the kit's files that answer the lab", 'answers = ["specs/Pipes.tla"]')
    methods = raw.get("methods", [])
    if not isinstance(methods, list) or not all(isinstance(m, str) and m.isidentifier() for m in methods):
        fail("`methods` is a list of the method names a submission writes", 'methods = ["join", "deleteUser"]')
    _references(raw, tests, fail)
    return Rubric(raw["lab"], raw["title"], raw["file"], raw.get("class", ""), raw.get("api", "handoff"),
                  tuple(raw.get("forbid", ())), tests, dict(raw.get("spec", {})), dict(raw.get("server", {})),
                  dict(hints), tuple(answers), dict(raw.get("dht", {})), tuple(methods))


def _test(t: dict, i: int, fail) -> TestSpec:
    kind = t.get("kind")
    if kind not in KIND_KEYS:
        fail(f"test {i} ('{t.get('name', '?')}') has unknown kind '{kind}'", f"kinds: {', '.join(sorted(KIND_KEYS))}")
    _closed(t, TEST_KEYS | KIND_KEYS[kind], f"test {i} ('{t.get('name', '?')}', a {kind} test)", fail)
    missing = ({"name", "points"} | REQUIRED[kind]) - set(t)
    if missing:
        fail(f"test {i} ('{t.get('name', '?')}') lacks {', '.join(sorted(missing))}",
             f"a {kind} test has {', '.join(sorted(TEST_KEYS | KIND_KEYS[kind]))}")
    if not isinstance(t["name"], str) or not t["name"].strip():
        fail(f"test {i}: name = {t['name']!r} is not a name", 'name = "public: what the test checks"')
    for key in ("method", "like", "variant", "handoff", "check", "why"):
        if key in t and not isinstance(t[key], str):
            fail(f"test {i} ('{t['name']}'): {key} = {t[key]!r} is not a string", f'{key} = "..."')
    if not isinstance(t.get("checker", ""), (str, list)):
        fail(f"test {i} ('{t['name']}'): checker = {t['checker']!r} is neither a checker nor a list of them",
             'checker = "lincheck", or checker = ["lincheck", "stress"]')
    if kind == "design" and not (t.get("calls") or t.get("avoid") or t.get("unlocked")):
        fail(f"test {i} ('{t['name']}'): a design test names what the design calls or avoids",
             'calls = ["java/lang/Object.wait"], avoid = ["java/util/concurrent/"]')
    if kind in ("server", "dht") and t["check"] not in SERVER_CHECKS:
        fail(f"test {i}: unknown server check '{t['check']}'", f"checks: {', '.join(sorted(SERVER_CHECKS))}")
    for key in ("like", "handoff"):  # a catalogued variant with a Java class (a handoff's for `handoff`), by name
        if key in t and not getattr(catalog.load().variants.get(t[key]), "java" if key == "handoff" else "java_class", None):
            fail(f"test {i} ('{t['name']}'): {key} = '{t[key]}' is no catalogued variant with a Java class",
                 "use a [[variant]] name of specs/catalog.toml that has java = ...")
    if isinstance(t["points"], bool) or not isinstance(t["points"], (int, float)) or t["points"] <= 0:
        fail(f"test {i} ('{t['name']}'): points = {t['points']!r} is not a positive number", "e.g. points = 2")
    if "hidden" in t and not isinstance(t["hidden"], bool):
        fail(f"test {i} ('{t['name']}'): hidden = {t['hidden']!r} is not true or false", "hidden = true")
    if "withheld" in t and (not isinstance(t["withheld"], str) or len(t["withheld"].strip()) < 10):
        fail(f"test {i} ('{t['name']}'): `withheld` says why the student may not run the test, in a sentence",
             'withheld = "it runs the kit\'s buggy handoffs, the lab\'s hidden test set"')
    checkers = t.get("checker", ())
    return TestSpec(t["name"], kind, float(t["points"]), bool(t.get("hidden", t["name"].startswith("hidden"))),
                    withheld=t.get("withheld", "").strip(),
                    method=t.get("method", ""), checkers=tuple([checkers] if isinstance(checkers, str) else checkers),
                    like=t.get("like"), seconds=t.get("seconds"), variant=t.get("variant", ""),
                    handoff=t.get("handoff", ""), check=t.get("check", ""), target=float(t.get("target", 0.0)),
                    calls=tuple(t.get("calls", ())), avoid=tuple(t.get("avoid", ())),
                    unlocked=tuple(t.get("unlocked", ())), covers=tuple(t.get("covers", ())), why=t.get("why", ""))


# The checkers a `checker` test may name, by the kind of class its `like` variant is (None: a handoff). JPF runs
# only where the instructor has a jpf-core build (JPF_HOME); jcstress and TLC are no checker of a submitted class.
HANDOFF_CHECKERS = ("lincheck", "stress", "jpf", "trace")


def _references(raw: dict, tests: tuple[TestSpec, ...], fail) -> None:
    """Everything the rubric names exists: the starter's file and the class it declares, the API profile, each JUnit
    method among the lab's public tests, each checker among those its `like` class takes, each hint in the handout.
    A slip here would grade every student wrong (a misspelt checker ends before it reports, and reads as the
    submission's doing), so it is the rubric's error, named before anyone is graded."""
    lab = raw["lab"]
    folder = paths.LABS / lab
    if not folder.is_dir():
        fail(f"lab = '{lab}' is no folder of labs/", f"labs: {', '.join(sorted(p.parent.name for p in paths.LABS.glob('*/rubric.toml')))}")
    starter = folder / "starter" / raw["file"]
    if not starter.is_file():
        there = sorted(p.name for p in (folder / "starter").glob("*") if p.is_file())
        fail(f"file = '{raw['file']}' is not the lab's starter file (labs/{lab}/starter/ holds {', '.join(there) or 'nothing'})",
             f"file = \"{there[0] if there else 'Student.java'}\": the one file a submission hands in, as the starter names it")
    if raw.get("class"):
        package, _, name = str(raw["class"]).rpartition(".")
        text = starter.read_text()
        if not package or not re.search(rf"^package {re.escape(package)};", text, re.M) \
                or not re.search(rf"\b(?:class|interface|record) {re.escape(name)}\b", text):
            fail(f"class = '{raw['class']}' is not the class labs/{lab}/starter/{raw['file']} declares",
                 "class = \"PACKAGE.NAME\", as the starter's `package` line and its class name say")
    api = raw.get("api", "handoff")
    policy = tomllib.loads((paths.LABS / "allowed-api.toml").read_text()).get("profile", {}) \
        if (paths.LABS / "allowed-api.toml").exists() else {}
    if policy and api not in policy:
        fail(f"api = '{api}' is no profile of labs/allowed-api.toml", f"profiles: {', '.join(sorted(policy))}")
    public = "\n".join(p.read_text() for p in sorted((folder / "public").glob("*.java"))) if (folder / "public").is_dir() else ""
    declared = set(re.findall(r"\bvoid\s+(\w+)\s*\(", public))
    cat = catalog.load()
    for i, t in enumerate(tests, 1):
        if t.kind == "junit" and t.method not in declared:
            fail(f"test {i} ('{t.name}'): method = '{t.method}' is no test method of labs/{lab}/public/",
                 f"the public tests' methods: {', '.join(sorted(declared)) or 'none'}")
        if t.kind == "checker":
            kind = cat.variant(t.like).class_kind
            takes = catalog.CLASS_CHECKERS.get(kind, HANDOFF_CHECKERS) if kind else HANDOFF_CHECKERS
            wrong = [c for c in t.checkers if c not in takes]
            if wrong or not t.checkers:
                fail(f"test {i} ('{t.name}'): checker = {list(t.checkers)!r} names {', '.join(map(repr, wrong)) or 'no checker'}, "
                     f"which {t.like} ({kind or 'a handoff'}) is not checked by",
                     f"checker is one of {', '.join(takes)} (or a list of them, run in turn)")
        if t.seconds is not None and (isinstance(t.seconds, bool) or not isinstance(t.seconds, (int, float)) or t.seconds <= 0):
            fail(f"test {i} ('{t.name}'): seconds = {t.seconds!r} is not a positive number", "e.g. seconds = 9")
        if t.kind == "tlc" and not getattr(cat.variants.get(t.variant), "cfg", None):
            fail(f"test {i} ('{t.name}'): variant = '{t.variant}' is no catalogued model (a [[variant]] with a cfg)",
                 "use a [[variant]] name of specs/catalog.toml that has cfg = ...")
    names = [t.name for t in tests]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        fail(f"two tests are called '{twice}'", "give each [[test]] a name of its own: the gradebook has a column per name")
    count = hint_count(lab)
    high = {topic: n for topic, n in raw.get("hints", {}).items() if n > count}
    if high:
        fail(f"[hints] points to hint(s) the handout does not have: {high} (labs/{lab}/README.md has {count})",
             "number a hint the handout's \"## Hints\" lists, or add the hint there")


def _closed(table, allowed: set[str], what: str, fail) -> None:
    if not isinstance(table, dict):
        fail(f"{what} is not a table", "see another lab's rubric.toml")
    unknown = sorted(set(table) - allowed)
    if unknown:
        fail(f"{what} has unknown key(s) {', '.join(repr(k) for k in unknown)}",
             f"allowed there: {', '.join(sorted(allowed))}")


def hint_count(lab: str) -> int:
    """How many numbered hints the lab's handout has (the handout read once: every rubric load asks)."""
    part = _hints(lab)
    n = 0
    while _hint_in(part, n + 1):
        n += 1
    return n


def hint(lab: str, number: int) -> str:
    """The text of hint `number` in the lab's handout, or "" if it has none."""
    return _hint_in(_hints(lab), number)


def _hints(lab: str) -> str:
    """The handout's text after its "## Hints" heading ("" without one)."""
    handout = paths.LABS / lab / "README.md"
    text = handout.read_text() if handout.exists() else ""
    return text.split("## Hints", 1)[1] if "## Hints" in text else ""


def _hint_in(part: str, number: int) -> str:
    m = re.search(rf"^{number}\. (.+?)(?=\n\d+\. |\n\n|\Z)", part, re.M | re.S)
    return " ".join(m.group(1).split()) if m else ""
