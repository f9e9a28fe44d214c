"""grader/kinds/junit.py: a public test past JUnit's own time limit while other work kept the grading machine busy
runs once more with a longer limit, the kernel counting what its threads ask of the processors (grader/schedstat.py):
past it again, a test whose threads asked for nothing is a hang and fails whatever the load; one still computing is
"not graded, regrade" on a busy machine and fails on a quiet one. On a quiet machine nothing runs twice."""
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import grader
from grader import budgets, schedstat
from grader.junit_launcher import Case
from grader.kinds import junit

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from hostilegrading import LIGHT, hostile  # noqa: E402

BUSY = (os.cpu_count() or 1) * budgets.BUSY_CORES * 2
LATE = f"oneThreadSeesAFifo() timed out after {budgets.JUNIT_SECONDS} seconds"
AGAIN = f"oneThreadSeesAFifo() timed out after {budgets.JUNIT_AGAIN_SECONDS} seconds"


def _graded(tmp_path, monkeypatch, first, again=None):
    """junit._run on the buffer lab with JUnit's runs replaced: `first` is (others_cores, Case), `again`
    (others_cores, idle_s, Case) what a second run reports; the runs it asked for, returned beside its results."""
    runs = []

    def fake_junit(jail, cp, scan, reports, props=(), timeout=None, select=(), limit_s=None,
                   watch=False):
        runs.append(SimpleNamespace(select=select, limit_s=limit_s, watch=watch))
        others, idle, case = (first[0], None, first[1]) if len(runs) == 1 else again
        cases = [case] + ([Case("putWaitsForRoomAndTakeForAnItem", True, "", "T", 0.1)] if len(runs) == 1 else [])
        return SimpleNamespace(timed_out=False, others_cores=others, output="", returncode=0, idle_s=idle), cases

    monkeypatch.setattr(junit.junit_launcher, "junit", fake_junit)
    monkeypatch.setattr(junit.javabuild, "classpath", lambda module="checks": "")
    jail = SimpleNamespace(run=lambda cmd, timeout=None: SimpleNamespace(returncode=0, output=""))
    results = junit._run(grader.load_rubric("buffer"), tmp_path, tmp_path, jail)
    assert results["putWaitsForRoomAndTakeForAnItem"][:1] == (True,)
    return results["oneThreadSeesAFifo"], runs


def _late(message=LATE, seconds=budgets.JUNIT_SECONDS + 0.01, limit=None):
    return Case("oneThreadSeesAFifo", False, message, "T", seconds if limit is None else limit + 0.01)


def test_on_a_quiet_machine_a_late_test_fails_at_once(tmp_path, monkeypatch):
    (ok, said, pending), runs = _graded(tmp_path, monkeypatch, (0.0, _late()))
    assert (ok, pending, len(runs)) == (False, False, 1) and said.startswith("Failed:")


@pytest.mark.parametrize("first", [
    _late("expected: <1> but was: <2>"),   # failed otherwise: whatever the load
    _late(seconds=0.2),                     # says it timed out, but ran for no time (a thrown TimeoutException)
])
def test_a_failure_that_is_no_time_out_is_not_run_again(tmp_path, monkeypatch, first):
    (ok, said, pending), runs = _graded(tmp_path, monkeypatch, (BUSY, first))
    assert (ok, pending, len(runs)) == (False, False, 1) and said.startswith("Failed:")


@pytest.mark.parametrize("again, ok, pending, says", [
    ((BUSY, 0.0, Case("oneThreadSeesAFifo", True, "", "T", 7.0)), True, False, "Passed, given"),
    ((BUSY, 26.0, _late(AGAIN, limit=budgets.JUNIT_AGAIN_SECONDS)), False, False, "none of its threads ran"),
    ((0.0, 26.0, _late(AGAIN, limit=budgets.JUNIT_AGAIN_SECONDS)), False, False, "none of its threads ran"),
    ((BUSY, 0.4, _late(AGAIN, limit=budgets.JUNIT_AGAIN_SECONDS)), False, True, "Not graded"),
    ((BUSY, None, _late(AGAIN, limit=budgets.JUNIT_AGAIN_SECONDS)), False, True, "Not graded"),
    ((0.0, 0.4, _late(AGAIN, limit=budgets.JUNIT_AGAIN_SECONDS)), False, False, "on a quiet machine"),
    ((0.0, None, _late(AGAIN, limit=budgets.JUNIT_AGAIN_SECONDS)), False, False, "on a quiet machine"),
    ((BUSY, 0.0, _late("expected: <1> but was: <2>")), False, False, "Failed: expected"),
])
def test_a_late_test_on_a_busy_machine_runs_again_and_only_a_computing_one_waits_for_a_regrade(
        tmp_path, monkeypatch, again, ok, pending, says):
    (was_ok, said, was_pending), runs = _graded(tmp_path, monkeypatch, (BUSY, _late()), again)
    assert (was_ok, was_pending) == (ok, pending) and says in said, said
    assert len(runs) == 2 and runs[1].select == ("T#oneThreadSeesAFifo",)
    assert runs[1].limit_s == budgets.JUNIT_AGAIN_SECONDS and runs[1].watch


needs_schedstat = pytest.mark.skipif(not schedstat.available(), reason="no per-thread scheduler statistics here")


@needs_schedstat
@pytest.mark.parametrize("cmd, idle", [
    (["sleep", "3"], True),
    (["timeout", "3", "sh", "-c", "while :; do :; done"], False),
])
def test_the_kernel_tells_a_sleeping_run_from_a_computing_one(tmp_path, cmd, idle):
    from grader import jail
    tmp_path.chmod(0o777)
    run = jail.Jail(tmp_path, ()).run(cmd, 30, watch=True)
    assert run.idle_s is not None
    assert (run.idle_s >= 2.0) if idle else (run.idle_s < 1.0), run.idle_s


def _force_busy(monkeypatch, first_s, again_s, hang_idle_s=budgets.HANG_IDLE_SECONDS):
    """Every run counted as beside a busy machine, with JUnit's limits shortened (the kinds read budgets' names)."""
    monkeypatch.setattr(budgets, "too_busy", lambda others: True)
    monkeypatch.setattr(budgets, "JUNIT_SECONDS", first_s)
    monkeypatch.setattr(budgets, "JUNIT_AGAIN_SECONDS", again_s)
    monkeypatch.setattr(budgets, "HANG_IDLE_SECONDS", hang_idle_s)


@needs_schedstat
def test_a_real_hang_fails_on_a_busy_machine(tmp_path, monkeypatch):
    """A put that waits with nobody to wake it: past the limit twice, its threads asking for nothing, it fails. The
    limits are shortened, the proof with them: the rerun's JVM starts inside its limit, and beside a full test run
    (other work on 1.9 cores) its start-up alone took about 5 s of a 9 s limit, leaving a 4 s idle stretch short of
    the 5 s proof, so the hang read as "still computing" (pending). Beside two busy loops and the default tier 12 s
    with a 3 s proof fell short the same way (stop 98). Here 20 s and a 3 s proof; the grader's own are 30 s and 5 s."""
    _force_busy(monkeypatch, 2, 20, hang_idle_s=3.0)
    g = grader.grade("buffer", hostile(tmp_path, put="        wait();"), tmp_path / "out", rubric=LIGHT)
    fifo = next(t for t in g.tests if t.name == "public: one thread sees a FIFO")
    assert fifo.score == 0 and not fifo.pending and "none of its threads ran" in fifo.output, fifo.output


@needs_schedstat
def test_a_slow_class_passes_when_given_time_on_a_busy_machine(tmp_path, monkeypatch):
    """A class that computes for 3 s as it loads: past a 1 s limit, then passed with 12 s."""
    _force_busy(monkeypatch, 1, 12)
    sub = hostile(tmp_path, static="        long end = System.nanoTime() + 3_000_000_000L;\n"
                                   "        while (System.nanoTime() < end) { Thread.onSpinWait(); }")
    g = grader.grade("buffer", sub, tmp_path / "out", rubric=LIGHT)
    public = [t for t in g.tests if t.name.startswith("public:")]   # the first to load the class pays for it
    assert all(t.score == t.max_score for t in public), [t.output for t in public]
    assert any("Passed, given 12 s" in t.output for t in public), [t.output for t in public]
