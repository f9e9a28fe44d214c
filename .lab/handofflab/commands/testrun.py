"""`./lab test`: the kit's tests — Java's JUnit tests through Maven, the other layers through
pytest — counted per layer, timed per layer, ending with one line `N passed, N failed`.

The tier is chosen here (tiers.py says what each is): `default` leaves out every test marked full,
`full` runs them all, `slice` runs only the commit's slice of the full one (CI runs it after the
default tier, so each is timed on its own).
Both runners' JUnit XML is kept in REPORTS, with a summary of where the time went."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from handofflab.java import javabuild
from handofflab.ground import paths, toolchain
from handofflab.suite import tiers
from handofflab.ground.console import console, heading

LAYERS = ("lab", "specs", "java", "notebooks", "book", "grading")  # "lab": the ./lab entry point itself
REPORTS = paths.ROOT / ".cache" / "test-report"   # git-ignored; a folder per tier, rewritten by its every run
DEFAULT_TEST_SECONDS = 60  # a default-tier test slower than this (wall, quiet) belongs to the full tier


@dataclass
class Case:
    """One test case as a runner's JUnit XML reports it."""
    layer: str
    name: str
    outcome: str      # passed, failed, skipped
    seconds: float    # wall
    cpu: float | None  # pytest only (conftest.py records it)
    tier: str
    quiet_waits: str = ""  # the seconds each quiet turn waited, "40,12" (suite/turns.py): judged again for the load


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and modification time."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def _cases(xml_file: Path, layer_of, tier_of) -> list[Case]:
    cases = []
    for case in ET.parse(xml_file).getroot().iter("testcase"):
        if case.find("skipped") is not None:
            outcome = "skipped"
        elif case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        else:
            outcome = "passed"
        props = {p.get("name"): p.get("value") for p in case.findall("properties/property")}
        name = f"{case.get('classname')}::{case.get('name')}"
        cases.append(Case(layer_of(case), name, outcome, float(case.get("time") or 0),
                          float(props["cpu_seconds"]) if "cpu_seconds" in props else None,
                          props.get("tier") or tier_of(case), props.get("quiet_turns_waited_s", "")))
    return cases


def _workers(pytest_args: tuple[str, ...]) -> int | None:
    """pytest processes at once: one more than the cores. Most tests wait on a JVM starting, a TLC
    run or a server's simulated work: one process keeps only about 1.3 of 2 cores busy, and one per
    core left an eighth of 2 cores idle over a whole run (27 CPU-minutes in 15.5 minutes). Verdicts
    do not depend on it: a check on a busier machine takes longer, never decides otherwise, and a
    grading that runs out of its budget is pending, which fails its test (the suite is run with two
    busy loops beside it too). Tests that share the source tree (the book, the notebooks, a release)
    or an expensive module fixture are kept on one worker by `xdist_group` marks. `-n N` among the
    arguments (or `-n 0`, or `-p no:xdist`) overrides (None)."""
    if any(a == "-n" or a.startswith("-n") and a[2:].isdigit() or a.startswith("--numprocesses") or a == "no:xdist"
           for a in pytest_args):
        return None
    from grader.batch import jails_in_memory  # each worker may be grading: one jail's memory each
    workers = min((os.cpu_count() or 1) + 1, jails_in_memory())
    return workers if workers > 1 else None


def _junit_tier(junit_full: list[tiers.Unit]):
    """A surefire test case's tier, from the JUnit sources' full tags (class or method)."""
    tagged = {u.junit_selector for u in junit_full}

    def tier_of(case) -> str:
        cls = (case.get("classname") or "").rsplit(".", 1)[-1]
        method = (case.get("name") or "").split("(", 1)[0].split("[", 1)[0]
        return "full" if cls in tagged or f"{cls}#{method}" in tagged else "default"
    return tier_of


def _mvn_test(args: list[str], jvm: list[str]) -> int:
    for old in paths.JAVA.glob("*/target/surefire-reports/*.xml"):
        old.unlink()
    # one module per core at once (-T 1C): the modules' tests are independent, and one at a time left
    # a core idle for half of the 105 s they took on 2 cores (75 s two at a time)
    return toolchain.run_foreground(["mvn", "-B", "-q", "-T", "1C", "-f", str(paths.JAVA / "pom.xml"), "test",
                                     "-Dmaven.test.failure.ignore=true", *jvm, *args])


def _keep_surefire(into: Path) -> list[Path]:
    into.mkdir(parents=True, exist_ok=True)
    kept = []
    for f in paths.JAVA.glob("*/target/surefire-reports/TEST-*.xml"):
        kept.append(Path(shutil.copyfile(f, into / f.name)))
    return kept


def _java(tier: str, chosen: list[tiers.Unit], junit_full: list[tiers.Unit], reports: Path) -> tuple[list[Case], float]:
    """JUnit through Maven: the default tier leaves out the full tags, the slice runs only its own."""
    started = time.monotonic()
    javabuild.build()
    # The server tests fork a JDK 21+ where there is one, so the VirtualThreads design is tested too.
    jdk21 = toolchain.jdk21()
    jvm = [f"-Dhandofflab.test.jvm={jdk21}"] if jdk21 else []
    if tier == "slice":
        selectors = [u.junit_selector for u in chosen if u.runner == "junit"]
        if not selectors:
            return [], time.monotonic() - started
        heading("java: JUnit 5, this commit's slice of the full tier: " + ", ".join(selectors))
        args = ["-Dgroups=full", "-Dtest=" + ",".join(selectors), "-Dsurefire.failIfNoSpecifiedTests=false"]
    else:
        heading(f"java: JUnit 5 (mvn test, {'every test' if tier == 'full' else 'the default tier'})")
        args = [] if tier == "full" else ["-DexcludedGroups=full"]
    rc = _mvn_test(args, jvm)
    xml = _keep_surefire(reports / "junit")
    failed_build = rc != 0 and not xml
    tier_of = _junit_tier(junit_full)
    cases = [c for f in xml for c in _cases(f, lambda case: "java", tier_of)]
    if failed_build:  # the build itself failed: that is a failure, not zero tests
        cases.append(Case("java", "mvn test (the build)", "failed", 0.0, None, "default"))
    return cases, time.monotonic() - started


def _pytest(tier: str, chosen: list[tiers.Unit], pytest_args: tuple[str, ...], results: Path,
            reports: Path) -> tuple[list[Case], float]:
    started = time.monotonic()
    names = [u.name for u in chosen if u.runner == "pytest"]
    if tier == "slice" and not names:
        return [], time.monotonic() - started
    workers = _workers(pytest_args)
    what = {"full": "every test", "default": "the default tier", "slice": "this commit's slice of the full tier"}
    heading("specs, java checkers, notebooks, book, grading (pytest" + (f", {workers} workers" if workers else "")
            + f", {what[tier]})")
    junit = reports / "pytest.xml"
    parallel = ["-n", str(workers), "--dist", "loadgroup"] if workers else []
    selection = [f"--tier={tier}"]
    if names:
        (reports / "slice.txt").write_text("\n".join(names) + "\n")
        selection += [f"--with-full={reports / 'slice.txt'}"]
    toolchain.run_foreground([sys.executable, "-m", "pytest", "-q", "--import-mode=importlib", "-o",
                              "junit_family=xunit1", *parallel, *selection, f"--junitxml={junit}", *pytest_args],
                             cwd=paths.ROOT, env={**os.environ, "HANDOFFLAB_RESULTS": str(results)})
    elapsed = time.monotonic() - started
    if not junit.exists():
        return [Case("specs", "pytest (the run)", "failed", 0.0, None, "default")], elapsed

    def layer_of(case) -> str:  # a case from outside the layers (pytest's own error) is the entry point's
        layer = (case.get("file") or case.get("classname", "")).lstrip(".").replace("/", ".").split(".")[0]
        return layer if layer in LAYERS else "lab"
    return _cases(junit, layer_of, lambda case: "full" if tier == "slice" else "default"), elapsed


def _summary(cases: list[Case], phases: dict[str, float], tier: str, slice_line: str | None) -> list[str]:
    """Where the time went: per layer, per runner, and the slowest tests with their tier."""
    lines = [f"./lab test, {tier} tier" + (f"; {slice_line}" if slice_line else "")]
    lines.append("time per runner (wall): " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in phases.items()))
    per_layer: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for c in cases:
        per_layer[c.layer][0] += c.seconds
        per_layer[c.layer][1] += c.cpu or 0.0
    lines.append("tests' own time per layer (their wall seconds summed; tests run side by side, so the sum exceeds "
                 "the runner's wall time) and pytest's CPU:")
    for layer in LAYERS:
        if layer in per_layer:
            wall, cpu = per_layer[layer]
            lines.append(f"  {layer:<10} {wall:8.1f} s" + (f"   CPU {cpu:7.1f} s" if cpu else ""))
    cpu_total = sum(c.cpu or 0.0 for c in cases)
    if cpu_total:
        lines.append(f"pytest: {cpu_total / 60:.1f} CPU-minutes over {os.cpu_count()} core(s)")
    quiet = [c for c in cases if c.quiet_waits]
    if quiet:  # each a judgement the suite's own load left unmade, made again with the other tests waiting
        waits = [float(w) for c in quiet for w in c.quiet_waits.split(",")]
        lines.append(f"quiet turns: {len(waits)}, by {len(quiet)} test(s) the load left unjudged, waiting {sum(waits):.0f} s "
                     "for the suite's other tests to finish (suite/turns.py):")
        lines += [f"  {c.outcome:<7} {c.name} (waited {c.quiet_waits} s)" for c in quiet]
    lines.append("the slowest tests (wall s, CPU s, tier):")
    for c in sorted(cases, key=lambda c: -c.seconds)[:15]:
        over = (f"   <- over the default tier's {DEFAULT_TEST_SECONDS} s"
                if c.tier == "default" and c.seconds > DEFAULT_TEST_SECONDS else "")
        cpu = f"{c.cpu:7.1f}" if c.cpu is not None else "      -"
        lines.append(f"  {c.seconds:7.1f} {cpu}  {c.tier:<7}  {c.name}{over}")
    return lines


def run(pytest_args: tuple[str, ...] = (), tier: str = "default") -> int:
    """The tests of `tier` (default, full or slice), writing only into a temporary results folder
    (HANDOFFLAB_RESULTS): a user's results/ (a 25-minute benchmark, say) is never touched, and the run
    checks that it is not. Reports go to REPORTS/TIER/."""
    started = time.monotonic()
    results = Path(tempfile.mkdtemp(prefix="handofflab-test-results-"))
    reports = REPORTS / tier
    shutil.rmtree(reports, ignore_errors=True)
    reports.mkdir(parents=True)
    before = _snapshot(paths.RESULTS)
    junit_full = tiers.junit_units()  # read once: the tier of each JUnit case, and the rotation's units
    chosen, slice_line = _slice(junit_full) if tier == "slice" else ([], None)
    phases = {}
    installing = time.monotonic()
    toolchain.install()  # a fresh clone's first installs, before any test: a test's time is its own
    toolchain.install_optional()
    phases["tools"] = time.monotonic() - installing
    java_cases, phases["JUnit"] = _java(tier, chosen, junit_full, reports)
    py_cases, phases["pytest"] = _pytest(tier, chosen, pytest_args, results, reports)
    cases = java_cases + py_cases
    changed = sorted(set(before.items()) ^ set(_snapshot(paths.RESULTS).items()))
    if changed:  # a test wrote where the user keeps results: a failure of the suite itself
        print(f"FAILED results/ untouched by the tests: {len(changed)} change(s), e.g. "
              + ", ".join(sorted({name for name, _ in changed})[:5]))
    cases.append(Case("lab", "results/ untouched by the tests", "failed" if changed else "passed", 0.0, None, "default"))
    phases["all"] = time.monotonic() - started

    summary = _summary(cases, phases, tier, slice_line)
    (reports / "summary.txt").write_text("\n".join(summary) + "\n")
    print("\n".join(summary))
    return _outcome(cases, reports, tier, results)


def _slice(junit_full: list[tiers.Unit]) -> tuple[list[tiers.Unit], str]:
    """CI's rotation: the commit's slice of the full tier, and the line that names it."""
    units = junit_full + tiers.pytest_units()
    i, k, chosen = tiers.rotation(units, tiers.commit_count())
    line = (f"slice {i + 1} of {k} of the full tier (chosen by the commit's count), "
            f"{sum(u.seconds for u in chosen):.0f} s on 2 quiet cores: " + ", ".join(u.name for u in chosen))
    heading("CI's rotation: this commit's slice of the full tier")
    print(line, flush=True)
    return chosen, line


def _outcome(cases: list[Case], reports: Path, tier: str, results: Path) -> int:
    """The counts per layer, as a table and as lines a script can read; the exit code. A failed run keeps
    the tests' results folder (its counterexamples) and says where."""
    counts: dict[str, Counter] = {layer: Counter() for layer in LAYERS}
    for c in cases:
        counts[c.layer][c.outcome] += 1
    table = Table(title=f"./lab test ({tier})")
    for col in ("layer", "passed", "failed", "skipped"):
        table.add_column(col)
    for layer in LAYERS:
        c = counts[layer]
        table.add_row(layer, str(c["passed"]), f"[red]{c['failed']}" if c["failed"] else "0", str(c["skipped"]))
    console.print(table)
    total = sum(counts.values(), Counter())
    for layer in LAYERS:
        c = counts[layer]
        print(f"{layer}: {c['passed']} passed, {c['failed']} failed" + (f", {c['skipped']} skipped" if c["skipped"] else ""))
    print(f"reports: {paths.shown(reports)}/ (both runners' JUnit XML, summary.txt: where the time went)")
    failed = total["failed"] > 0 or total["passed"] == 0
    if failed:
        print(f"(the tests' results and counterexamples are kept in {results})")
    else:
        shutil.rmtree(results, ignore_errors=True)
    line = f"{total['passed']} passed, {total['failed']} failed"
    if total["skipped"]:
        line += f", {total['skipped']} skipped"
    print(line, flush=True)
    return 1 if failed else 0
