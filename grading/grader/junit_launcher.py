"""The test tools the grader runs in the jail, each written once: JUnit's console launcher (the
public tests, a test-writing lab's suites), read back through its XML report."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from grader import budgets
from grader.jail import Jail, MalformedReport, Run, read_report


def junit(jail: Jail, classpath: str, scan: Path, reports: Path, props: tuple[str, ...] = (),
          timeout: float | None = None) -> tuple[Run, list[tuple[str, bool, str]]]:
    """JUnit's console launcher on the test classes in `scan`; (method, passed, message) for each
    test its XML report lists. A report that is missing or malformed lists nothing."""
    run = jail.run(["java", *props, "-cp", classpath, "org.junit.platform.console.ConsoleLauncher",
                    "execute", "--disable-banner", "--details=none", "--disable-ansi-colors",
                    "--scan-class-path", str(scan),
                    f"--config=junit.jupiter.execution.timeout.default={budgets.JUNIT_TIMEOUT}",
                    "--config=junit.jupiter.execution.timeout.thread.mode.default=SEPARATE_THREAD",
                    "--reports-dir", str(reports)], timeout=timeout or budgets.TEST_SECONDS)
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
        cases.append((case.get("name", "").split("(")[0], failure is None and case.find("skipped") is None,
                      message or ("skipped" if case.find("skipped") is not None else "")))
    return run, cases
