"""Grading the test-writing lab (mutants): its reference, its starter and its samples get the marks expected.toml
records, every run, and each report says what the sample got wrong."""
import os
import re
import sys
from pathlib import Path

import pytest

from grader import budgets
from handofflab.ground import paths

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import SAMPLES, _expected, _graded_as_an_instructor_would, grade  # noqa: E402


@pytest.mark.full("the reference's suite runs in six JVMs, one per handoff, each with its stress tests (77 s in the "
                  "suite); the default tier grades the lab's starter and a peeking suite", seconds=77)
def test_reference_tests_kill_every_mutant_with_no_false_alarm(tmp_path):
    # Its stress tests time their threads (a 1 s watchdog): beside other work a correct handoff can fail them, which
    # the grader, counting that work, calls "not graded, regrade" rather than a false alarm; so regrade as an
    # instructor would.
    g = _graded_as_an_instructor_would(tmp_path, "mutants", "correct")
    scores, report = [t.score for t in g.tests], g.report()
    assert scores == _expected("mutants", "correct") and sum(scores) == 10, report
    # NoDummyQueue loses a node: the lockstep test or the race's watchdog sees a connection never taken (a full-tier
    # run under load 9-19 saw the watchdog's "nothing moved for 1 s" kill it first)
    killed = re.search(r"Killed `NoDummyQueue`.*?```text\n(.*?)```", report, re.S)
    assert killed and "lost" in killed.group(1), report


def test_a_false_alarm_on_a_busy_machine_is_run_again_and_then_pending(tmp_path, monkeypatch):
    """A student's test with a clock (a 1 s watchdog) can fail a correct handoff from load alone, and a false alarm
    voids every kill: the grader runs a suite that fails a correct handoff once more when the jail counted other
    work keeping the machine busy, and failing again busy is "not graded"; on a quiet machine it is a false alarm, and
    a kill of a buggy handoff stands whatever the load."""
    from types import SimpleNamespace

    from grader.junit_launcher import Case
    from grader.kinds import mutants
    busy = (os.cpu_count() or 1) * budgets.BUSY_CORES * 2
    runs = []

    def junit(jail, cp, scan, reports, props, timeout):
        runs.append(next(p for p in props if "subject" in p))
        run = SimpleNamespace(timed_out=False, others_cores=others)
        return run, [Case("race", False, "trial 3: nothing moved for 1 s"), Case("one", True, "")]

    monkeypatch.setattr(mutants.junit_launcher, "junit", junit)
    ctx = SimpleNamespace(tmp=tmp_path, jail=SimpleNamespace(work=tmp_path))
    for n, others in enumerate((busy, 0.0)):
        ctx.jail.work = tmp_path / str(n)
        ctx.jail.work.mkdir()
        runs.clear()
        outcome = mutants._run_suites(ctx, ["ParallelHashTable", "NoDummyQueue"])
        correct, buggy = outcome["ParallelHashTable"], outcome["NoDummyQueue"]
        assert buggy[0] == "failed"                                   # a kill, busy or not: run once
        if others:
            assert correct[0] == "pending" and "twice" in correct[1] and "nothing moved" in correct[1], correct
            assert len(runs) == 3
        else:
            assert correct[0] == "failed" and len(runs) == 2          # quiet: a false alarm at once


@pytest.mark.full("a mutant-lab grading: the tests run against every mutant", seconds=32)
def test_a_false_alarm_voids_every_kill(tmp_path):
    g = _graded_as_an_instructor_would(tmp_path, "mutants", "false_alarm")  # a busy machine's alarm is no verdict
    scores, report = [t.score for t in g.tests], g.report()
    assert scores == _expected("mutants", "false_alarm"), report
    assert "False alarm: your tests fail `ParallelHashTable`" in report


def test_tests_that_kill_nothing_earn_nothing_and_peeking_is_refused(tmp_path):
    scores, report = grade(tmp_path, "mutants", paths.LABS / "mutants" / "starter")
    assert scores == _expected("mutants", "starter") and "kill no mutant" in report, report
    peek = tmp_path / "peek"
    peek.mkdir()
    src = (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()
    (peek / "HandoffTests.java").write_text(src.replace(
        "h.put(42);", 'h.put(42);\n        if (h.getClass().getSimpleName().startsWith("Notify")) throw new AssertionError();', 1))
    scores, report = grade(tmp_path / "p", "mutants", peek)
    assert scores == [0] * len(scores) and "`java.lang.Class.getSimpleName`" in report, report
