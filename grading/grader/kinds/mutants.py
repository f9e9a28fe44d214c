"""`mutants`: the submitted JUnit tests run against one of the kit's handoffs per test (through
the lab's `Subject`), each in a fresh JVM and folder, in a secret order. A buggy handoff scores
when the tests fail it (a kill), a correct one when they pass it — under scoring.earns."""
from __future__ import annotations

import secrets

from grader import budgets, junit_launcher, scoring
from grader.context import Context
from handofflab.ground import catalog
from handofflab.java import javabuild

KIND = "mutants"
NEEDS: tuple[str, ...] = ()
_SAID = {  # scoring.outcome -> what the student reads
    "pass": "No false alarm: your tests pass `{name}`.",
    "pass-unearned": "Your tests pass `{name}`, but they kill no mutant: tests that pass everything earn nothing "
                     "for passing.",
    "false-alarm": "False alarm: your tests fail `{name}`, a correct handoff.\n\n```text\n{detail}\n```",
    "catch": "Killed `{name}` ({bug}):\n\n```text\n{detail}\n```",
    "catch-unearned": "Your tests fail `{name}`, but they also fail a correct handoff, so the kill proves nothing. "
                      "Remove the false alarm first.",
    "missed": "Survived: your tests pass `{name}` ({bug})",
}


def score(ctx: Context) -> None:
    """Each `mutants` test names one of the kit's handoffs; the submitted JUnit tests run
    against it (through the lab's `Subject`). A buggy one scores when the tests fail it (a
    kill) and only if they pass every correct one; a correct one scores when the tests pass
    it, and only if they kill at least one mutant."""
    cat = catalog.load()
    tests = ctx.tests(KIND)
    outcome = _run_suites(ctx, [spec.handoff for spec, _ in tests])
    if any(state == "pending" for state, _ in outcome.values()):
        why = "; ".join(detail for state, detail in outcome.values() if state == "pending")
        for _, result in tests:  # every mark depends on every handoff's outcome
            result.pending = True
            result.output = f"Not graded: {why}. Your instructor will regrade."
        return
    correct = [n for n in outcome if cat.variant(n).correct]
    every_correct_passes = all(outcome[n][0] == "passed" for n in correct)
    some_bug_caught = any(not cat.variant(n).correct and outcome[n][0] == "failed" for n in outcome)
    for spec, result in tests:
        name = spec.handoff
        state, detail = outcome[name]
        variant = cat.variant(name)
        right = state == ("passed" if variant.correct else "failed")
        said = scoring.outcome(variant.correct, right, every_correct_passes, some_bug_caught)
        if said in scoring.EARNED:
            result.score = result.max_score
        result.output = (f"Not graded: {detail}." if state == "none"
                         else _SAID[said].format(name=name, bug=variant.bug, detail=detail))


def _run_suites(ctx: Context, handoffs: list[str]) -> dict[str, tuple[str, str]]:
    """The submitted suite against each handoff: (passed | failed | none | pending, detail)."""
    tmp, jail = ctx.tmp, ctx.jail
    cp = f"{tmp / 'classes'}:{tmp / 'kit-classes'}:{javabuild.classpath('checks')}"
    outcome = {}
    # A fresh JVM, a fresh temporary folder and a secret order for every handoff: a suite that
    # counts its runs (to fail "the third one") has nothing to count with.
    order = list(handoffs)
    secrets.SystemRandom().shuffle(order)
    for i, name in enumerate(order):
        variant = catalog.load().variant(name)  # a variant's name is not always its class's (Pipes: PipeHandoff)
        # Each test has JUnit's own timeout (a hang is a failure within seconds), so a suite that
        # runs past the whole budget met a busy machine: once more with twice the budget, then pending.
        # A suite that fails a correct handoff while other work kept the machine busy is run once more
        # too: a student's test with a clock in it (a watchdog of 1 s) can fail from load alone, and a
        # false alarm voids every kill. Failing it again, busy again, is no verdict ("pending"); on a
        # machine that was not busy, it is a false alarm.
        for attempt in (1, 2):
            run_tmp = jail.work / f"run-{i}-{attempt}"
            run_tmp.mkdir()
            run, cases = junit_launcher.junit(jail, cp, tmp / "classes", tmp / f"mutants-{i}-{attempt}",
                                     (f"-Dhandofflab.subject={variant.java}", f"-Dhandofflab.profile={variant.profile.arg()}",
                                      f"-Djava.io.tmpdir={run_tmp}"),
                                     timeout=attempt * budgets.TEST_SECONDS)
            failures = [f"{c.method}: {c.message}" for c in cases if not c.ok]
            if not run.timed_out and not _alarm_on_a_busy_machine(variant, failures, run):
                break
        if run.timed_out:
            outcome[name] = ("pending", f"your tests ran past {budgets.TEST_SECONDS} s and then "
                             f"{2 * budgets.TEST_SECONDS} s on `{name}`, although each test has a "
                             f"{budgets.JUNIT_SECONDS} s timeout: the grading machine was too busy")
        elif _alarm_on_a_busy_machine(variant, failures, run):
            outcome[name] = ("pending", f"your tests failed `{name}`, a correct handoff, twice, while other work on "
                             f"the grading machine kept {run.others_cores:.1f} of its cores busy: a test that "
                             "times its threads can fail from load alone, so this is not yet a false alarm "
                             f"(first failure: {failures[0][:300]})")
        elif not cases:
            outcome[name] = ("none", "no test ran: annotate your test methods with @Test")
        else:
            outcome[name] = ("failed" if failures else "passed", "\n".join(failures)[:2000])
    return outcome


def _alarm_on_a_busy_machine(variant, failures: list[str], run) -> bool:
    """The suite failed a correct handoff while the jail counted other work keeping the machine busy."""
    return variant.correct and bool(failures) and budgets.too_busy(run.others_cores)
