"""`junit`: the lab's public JUnit tests (labs/LAB/public), compiled against the submitted class
and run by JUnit's console launcher; a test scores when its method passed."""
from __future__ import annotations

import shutil
from pathlib import Path

from grader import budgets, junit_launcher
from grader.context import Context
from grader.jail import Jail, ended_early
from grader.rubric import Rubric
from handofflab.java import javabuild
from handofflab.ground import paths

KIND = "junit"
NEEDS: tuple[str, ...] = ()


def score(ctx: Context) -> None:
    results = _run(ctx.rubric, ctx.classes, ctx.tmp, ctx.jail)
    for spec, result in ctx.tests(KIND):
        ok, output, pending = results.get(spec.method, (False, "The test did not run.", False))
        result.score = result.max_score if ok else 0.0
        result.output, result.pending = output, pending


def _run(rubric: Rubric, classes: Path, tmp: Path, jail: Jail) -> dict[str, tuple[bool, str, bool]]:
    """Compile the lab's public tests against the submission and run them with JUnit's console launcher; read its
    XML report: (passed, what the student reads, pending) for each test method."""
    # copied into the grading's own folder, which the jail's uid is given: the kit's copy may be private to
    # whoever unpacked it (a zip that stored 0600 made every public test "not compile" on Gradescope)
    (tmp / "public-tests").mkdir()
    tests_src = [Path(shutil.copy(f, tmp / "public-tests" / f.name))
                 for f in sorted((paths.LABS / rubric.lab / "public").glob("*.java"))]
    cp = javabuild.classpath("checks")
    test_classes = tmp / "test-classes"
    test_classes.mkdir()
    build = jail.run([*budgets.JAVAC, "-Xlint:none", "-proc:none", "-cp", f"{classes}:{cp}", "-d", str(test_classes),
                      *map(str, tests_src)], timeout=budgets.COMPILE_SECONDS)
    if build.returncode != 0:
        msg = "The public tests do not compile against your class (did you change its methods?):\n\n```text\n" \
              + build.output + "\n```"
        return {t.method: (False, msg, False) for t in rubric.tests if t.kind == "junit"}
    classpath = f"{test_classes}:{classes}:{cp}"
    run, cases = junit_launcher.junit(jail, classpath, test_classes, tmp / "junit-reports")
    results = {c.method: (c.ok, "Passed." if c.ok else "Failed: " + c.message, False) for c in cases}
    late = [c for c in cases if c.timed_out(budgets.JUNIT_SECONDS)]
    if late and budgets.too_busy(run.others_cores):
        results.update(_again(jail, classpath, test_classes, tmp, late, run.others_cores))
    for t in rubric.tests:
        if t.kind == "junit" and t.method not in results:
            results[t.method] = (False, (f"Timed out after {budgets.TEST_SECONDS} s: a thread probably waits for ever."
                                            if run.timed_out else ended_early("the public tests", run)), False)
    return results


def _again(jail: Jail, classpath: str, test_classes: Path, tmp: Path, late: list[junit_launcher.Case],
           busy_cores: float) -> dict[str, tuple[bool, str, bool]]:
    """The tests that ran past JUnit's limit while other work kept the machine busy, once more with a longer one,
    the kernel's scheduler counting what their threads asked of the processors (jail.run's watch). A hang and a
    slow test both reach a limit; only a hang asks for nothing while it waits: past the longer limit, a test whose
    threads asked for no processor for HANG_IDLE_SECONDS fails whatever the load; one that kept asking, on a machine
    busy again, is not graded ("regrade"); on a quiet one it fails. A class that prints a gigabyte as it loads took
    more than 5 s beside a test run at a load of 16; a lost wake-up waits for ever at any load."""
    limit = budgets.JUNIT_AGAIN_SECONDS
    run, cases = junit_launcher.junit(jail, classpath, test_classes, tmp / "junit-reports-again",
                                      select=tuple(f"{c.classname}#{c.method}" for c in late), limit_s=limit,
                                      timeout=budgets.TEST_SECONDS + limit * len(late), watch=True)
    first = {c.method: c for c in late}
    results = {}
    for c in cases:
        if c.method not in first:
            continue
        said = f"{first[c.method].message} (while other work kept {busy_cores:.1f} cores of the grading machine busy)"
        if c.ok:
            results[c.method] = (True, f"Passed, given {limit} s: {said}.", False)
        elif not c.timed_out(limit):
            results[c.method] = (False, f"Failed: {c.message}", False)
        elif run.idle_s is not None and run.idle_s >= budgets.HANG_IDLE_SECONDS:
            results[c.method] = (False, f"Failed: {said}; given {limit} s it timed out again, and for {run.idle_s:.0f} s "
                                        "none of its threads ran or waited for a processor: it waits for something that "
                                        "never comes (a lost wake-up or a deadlock).", False)
        elif budgets.too_busy(run.others_cores):  # idle_s None: not known here, not proven
            results[c.method] = (False, f"Not graded: {said}; given {limit} s it timed out again, still computing, while "
                                        f"other work kept {run.others_cores:.1f} cores busy: the time may be the "
                                        "machine's, not your code's. Your instructor will regrade.", True)
        else:
            results[c.method] = (False, f"Failed: {said}; given {limit} s on a quiet machine it timed out again, still "
                                        "computing: a loop that never ends?", False)
    for method, c in first.items():
        results.setdefault(method, (False, "Failed: " + c.message + (
            f"; run once more, it did not finish: {ended_early('the public tests', run)}" if not run.timed_out else
            f"; run once more, it ran past {budgets.TEST_SECONDS} s"), False))
    return results
