"""`./lab test`: every test of the kit — Java's JUnit tests through Maven, the
other layers through pytest — counted per layer, ending with one line
`N passed, N failed`."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

from rich.table import Table

from handofflab import javabuild, paths, toolchain
from handofflab.console import console, heading

LAYERS = ("lab", "specs", "java", "notebooks", "book", "grading")  # "lab": the ./lab entry point itself
OUT = paths.RESULTS / "test"


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


def run(pytest_args: tuple[str, ...] = ()) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    javabuild.build()
    heading("java: JUnit 5 (mvn test)")
    for old in paths.JAVA.glob("*/target/surefire-reports/*.xml"):
        old.unlink()
    # The server tests fork a JDK 21+ where there is one, so the VirtualThreads design is tested too.
    jdk21 = toolchain.jdk21()
    jvm = [f"-Dhandofflab.test.jvm={jdk21}"] if jdk21 else []
    mvn = subprocess.run(["mvn", "-B", "-q", "-f", str(paths.JAVA / "pom.xml"), "test",
                          "-Dmaven.test.failure.ignore=true", *jvm], text=True)
    surefire = list(paths.JAVA.glob("*/target/surefire-reports/TEST-*.xml"))
    counts = _count(surefire, lambda case: "java")
    if mvn.returncode != 0 and not surefire:
        counts["java"]["failed"] += 1  # the build itself failed: that is a failure, not zero tests
    heading("specs, java checkers, notebooks, book, grading (pytest)")
    junit = OUT / "pytest.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "--import-mode=importlib", "-o", "junit_family=xunit1",
                    f"--junitxml={junit}", *pytest_args], cwd=paths.ROOT, text=True)
    if junit.exists():
        py = _count([junit], lambda case: (case.get("file") or case.get("classname", "")).lstrip(".")
                    .replace("/", ".").split(".")[0])
        for layer in LAYERS:
            counts[layer] += py[layer]
    else:
        counts["specs"]["failed"] += 1
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
    return 0 if total["failed"] == 0 and total["passed"] > 0 else 1
