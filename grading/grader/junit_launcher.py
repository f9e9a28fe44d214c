"""The test tools the grader runs in the jail, each written once: JUnit's console launcher (the
public tests, a test-writing lab's suites), read back through its XML report."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import NamedTuple

from grader import budgets
from grader.jail import Jail, MalformedReport, Run, read_report


class Case(NamedTuple):
    """One test of a JUnit XML report."""
    method: str
    ok: bool
    message: str
    classname: str = ""
    seconds: float = 0.0

    def timed_out(self, limit_s: int) -> bool:
        """Failed at JUnit's own time limit: its message says so and it ran that long (a thrown
        TimeoutException that says it does not)."""
        return not self.ok and bool(TIMED_OUT.search(self.message)) and self.seconds >= 0.9 * limit_s


TIMED_OUT = re.compile(r"timed out after \d+")   # JUnit's message for a test past its time limit


def junit(jail: Jail, classpath: str, scan: Path, reports: Path, props: tuple[str, ...] = (),
          timeout: float | None = None, select: tuple[str, ...] = (), limit_s: int | None = None,
          watch: bool = False) -> tuple[Run, list[Case]]:
    """JUnit's console launcher on the test classes in `scan` (or only the methods `select`ed, as
    "Class#method"), each test held to `limit_s` (budgets.JUNIT_SECONDS); a Case for each test its XML
    report lists. A report that is missing or malformed lists nothing. `watch`: Run.idle_s (jail.run)."""
    chosen = [f"--select-method={m}" for m in select] or ["--scan-class-path", str(scan)]
    limit_s = limit_s or budgets.JUNIT_SECONDS
    run = jail.run(["java", *props, "-cp", classpath, "org.junit.platform.console.ConsoleLauncher",
                    "execute", "--disable-banner", "--details=none", "--disable-ansi-colors", *chosen,
                    f"--config=junit.jupiter.execution.timeout.default={limit_s} s",
                    "--config=junit.jupiter.execution.timeout.thread.mode.default=SEPARATE_THREAD",
                    "--reports-dir", str(reports)], timeout=timeout or budgets.TEST_SECONDS, watch=watch)
    cases = []
    try:
        root = ET.fromstring(read_report(reports / "TEST-junit-jupiter.xml"))
    except (MalformedReport, ET.ParseError):
        return run, cases
    for case in root.iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        message = "" if failure is None else (failure.get("message") or failure.text or "")[:2000]
        try:
            seconds = float(case.get("time", "0").replace(",", ""))
        except ValueError:
            seconds = 0.0
        cases.append(Case(case.get("name", "").split("(")[0], failure is None and case.find("skipped") is None,
                          message or ("skipped" if case.find("skipped") is not None else ""),
                          case.get("classname", ""), seconds))
    return run, cases
