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
        ok, output = results.get(spec.method, (False, "The test did not run."))
        result.score = result.max_score if ok else 0.0
        result.output = output


def _run(rubric: Rubric, classes: Path, tmp: Path, jail: Jail) -> dict[str, tuple[bool, str]]:
    """Compile the lab's public tests against the submission and run them
    with JUnit's console launcher; read its XML report."""
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
        return {t.method: (False, msg) for t in rubric.tests if t.kind == "junit"}
    run, cases = junit_launcher.junit(jail, f"{test_classes}:{classes}:{cp}", test_classes, tmp / "junit-reports")
    results = {method: (ok, "Passed." if ok else "Failed: " + message) for method, ok, message in cases}
    for t in rubric.tests:
        if t.kind == "junit" and t.method not in results:
            results[t.method] = (False, (f"Timed out after {budgets.TEST_SECONDS} s: a thread probably waits for ever."
                                            if run.timed_out else ended_early("the public tests", run)))
    return results
