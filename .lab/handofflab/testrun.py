"""`./lab test`: every test of the kit — Java's JUnit tests through Maven, the
other layers through pytest — counted per layer, ending with one line
`N passed, N failed`."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from rich.table import Table

from handofflab import javabuild, paths, toolchain
from handofflab.console import console, heading

LAYERS = ("lab", "specs", "java", "notebooks", "book", "grading")  # "lab": the ./lab entry point itself


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and modification time."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def _count(xml_files, layer_of) -> dict[str, Counter]:
    counts: dict[str, Counter] = {layer: Counter() for layer in LAYERS}
    for f in xml_files:
        for case in ET.parse(f).getroot().iter("testcase"):
            if case.find("skipped") is not None:
                outcome = "skipped"
            elif case.find("failure") is not None or case.find("error") is not None:
                outcome = "failed"
            else:
                outcome = "passed"
            counts[layer_of(case)][outcome] += 1
    return counts


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


def _cpu_report(junit: Path, top: int = 12) -> None:
    """The tests that cost the most CPU (conftest.py records it per test): on a machine with few
    cores the suite lasts about its CPU time over the cores, so this is where to cut."""
    cost = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        prop = case.find("properties/property[@name='cpu_seconds']")
        if prop is not None:
            cost.append((float(prop.get("value")), f"{case.get('classname')}::{case.get('name')}"))
    if not cost:
        return
    cost.sort(reverse=True)
    total = sum(c for c, _ in cost)
    print(f"pytest: {total / 60:.1f} CPU-minutes over {os.cpu_count()} core(s); the most costly tests:")
    for seconds, name in cost[:top]:
        print(f"  {seconds:7.1f} s  {name}")


def run(pytest_args: tuple[str, ...] = ()) -> int:
    """Every test, writing only into a temporary results folder (HANDOFFLAB_RESULTS): a user's
    results/ (a 25-minute benchmark, say) is never touched, and the run checks that it is not."""
    out = Path(tempfile.mkdtemp(prefix="handofflab-test-results-"))
    before = _snapshot(paths.RESULTS)
    javabuild.build()
    heading("java: JUnit 5 (mvn test)")
    for old in paths.JAVA.glob("*/target/surefire-reports/*.xml"):
        old.unlink()
    # The server tests fork a JDK 21+ where there is one, so the VirtualThreads design is tested too.
    jdk21 = toolchain.jdk21()
    jvm = [f"-Dhandofflab.test.jvm={jdk21}"] if jdk21 else []
    # one module per core at once (-T 1C): the modules' tests are independent, and one at a time left
    # a core idle for half of the 105 s they took on 2 cores (75 s two at a time)
    mvn = subprocess.run(["mvn", "-B", "-q", "-T", "1C", "-f", str(paths.JAVA / "pom.xml"), "test",
                          "-Dmaven.test.failure.ignore=true", *jvm], text=True)
    surefire = list(paths.JAVA.glob("*/target/surefire-reports/TEST-*.xml"))
    counts = _count(surefire, lambda case: "java")
    if mvn.returncode != 0 and not surefire:
        counts["java"]["failed"] += 1  # the build itself failed: that is a failure, not zero tests
    workers = _workers(pytest_args)
    heading("specs, java checkers, notebooks, book, grading (pytest" + (f", {workers} workers)" if workers else ")"))
    junit = out / "pytest.xml"
    parallel = ["-n", str(workers), "--dist", "loadgroup"] if workers else []
    subprocess.run([sys.executable, "-m", "pytest", "-q", "--import-mode=importlib", "-o", "junit_family=xunit1",
                    *parallel, f"--junitxml={junit}", *pytest_args], cwd=paths.ROOT, text=True,
                   env={**os.environ, "HANDOFFLAB_RESULTS": str(out)})
    if junit.exists():
        py = _count([junit], lambda case: (case.get("file") or case.get("classname", "")).lstrip(".")
                    .replace("/", ".").split(".")[0])
        for layer in LAYERS:
            counts[layer] += py[layer]
        _cpu_report(junit)
    else:
        counts["specs"]["failed"] += 1
    changed = sorted(set(before.items()) ^ set(_snapshot(paths.RESULTS).items()))
    if changed:  # a test wrote where the user keeps results: a failure of the suite itself
        counts["lab"]["failed"] += 1
        print(f"FAILED results/ untouched by the tests: {len(changed)} change(s), e.g. "
              + ", ".join(sorted({name for name, _ in changed})[:5]))
    else:
        counts["lab"]["passed"] += 1
    table = Table(title="./lab test")
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
    line = f"{total['passed']} passed, {total['failed']} failed"
    if total["skipped"]:
        line += f", {total['skipped']} skipped"
    print(line, flush=True)
    failed = total["failed"] > 0 or total["passed"] == 0
    if failed:
        print(f"(the tests' results, reports and counterexamples are kept in {out})")
    else:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if failed else 0
