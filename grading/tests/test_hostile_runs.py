"""Hostile submissions as they run: an endless loop, a deadlock, an exit, a static initializer that never returns,
a memory, fork or thread bomb, a gigabyte of output, a leaked thread, a class that blocks its checker. Each gets a
clear result and a valid results.json, the grade is what the act costs, and the grader never crashes or waits for
ever. test_hostile_jail.py holds what a submission tries to reach; test_forgery*.py what it tries to forge."""
import concurrent.futures
import sys
from pathlib import Path

import pytest

import grader

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from hostilegrading import LIGHT, grade, hostile, isolated, jailed_processes  # noqa: E402


@pytest.mark.full("spins for the whole of each checker's time limit", seconds=34)
def test_an_infinite_loop_is_stopped_by_the_time_limits(tmp_path):
    g, report, seconds = grade(tmp_path, hostile(tmp_path, put="        while (item != null) { Thread.onSpinWait(); }"))
    assert g.score == 0, report
    assert "timed out after 5 seconds" in report and "a loop that never ends" in report, report
    assert seconds < 4 * grader.budgets.TEST_SECONDS


def test_a_deadlock_is_a_verdict_not_a_hang(tmp_path):
    # every put waits for ever (its item is never null), so nothing is ever handed over: stress says so,
    # rather than blaming a lost wake-up
    g, report, _ = grade(tmp_path, hostile(tmp_path, put="        while (item != null) { wait(); }"))
    assert g.score == 0 and "timed out after 5 seconds" in report and "Not one connection was handed over" in report, report


@pytest.mark.parametrize("act, named", [("System.exit(0);", "java.lang.System.exit"),
                                        ("Runtime.getRuntime().halt(3);", "java.lang.Runtime")])
def test_ending_the_jvm_is_refused_before_anything_runs(tmp_path, act, named):
    g, report, seconds = grade(tmp_path, hostile(tmp_path, static=f"        {act}"))
    assert g.score == 0 and f"`{named}" in g.problem and "was not run" in g.problem, report


def test_a_static_initializer_that_never_returns(tmp_path):
    g, report, seconds = grade(tmp_path, hostile(tmp_path, static=(
        "        try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }")))
    # The first public test times out; JUnit then interrupts its thread, which ends this sleep, so
    # the class finishes loading and the second public test may pass. The checkers name it.
    assert g.score <= 3 and "static initializer never returns" in report, report
    assert seconds < 3 * grader.budgets.TEST_SECONDS


def test_a_memory_bomb_runs_out_inside_its_own_heap(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=(
        "        java.util.List<long[]> hog = new java.util.ArrayList<>();\n"
        "        while (hog.size() >= 0) { hog.add(new long[1 << 24]); }")))
    assert g.score == 0 and "OutOfMemoryError" in report, report


def test_a_gigabyte_of_output_is_cut_and_the_grade_stands(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=(
        "        byte[] line = new byte[1 << 20];\n"
        "        java.util.Arrays.fill(line, (byte) 'x');\n"
        "        for (int i = 0; i < 1024; i++) { System.out.write(line, 0, line.length); }\n"
        "        System.out.flush();")))
    assert g.score == 10, report  # printing is not wrong; it is only not kept


def test_a_leaked_thread_does_not_keep_the_grader_waiting(tmp_path):
    g, _, seconds = grade(tmp_path, hostile(tmp_path, static=(
        "        new Thread(() -> { while (true) { try { Thread.sleep(1000); } catch (InterruptedException e) { } } })"
        ".start();")))
    assert g.score == 10 and seconds < grader.budgets.TEST_SECONDS
    assert jailed_processes() == []


def test_a_fork_bomb_is_refused_before_it_runs(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=(
        "        try {\n"
        "            for (int i = 0; i < 100000; i++) { new ProcessBuilder(\"sleep\", \"600\").start(); }\n"
        "        } catch (java.io.IOException e) { throw new RuntimeException(\"FORK-STOPPED \" + e.getMessage()); }")))
    assert g.score == 0 and "`java.lang.ProcessBuilder" in g.problem, report
    assert jailed_processes() == []


@isolated
@pytest.mark.full("a grading beside a neighbour's, each of its checkers to the end", seconds=11)
def test_a_thread_bomb_hits_its_own_limit_and_the_honest_neighbour_keeps_its_marks(tmp_path):
    """Threads are allowed code; a bomb of them meets its grading's own task limit (its own uid,
    its own cgroup), never the limit of a submission graded beside it."""
    bomb = hostile(tmp_path, name="bomb", static=(
        "        for (int i = 0; i < 100000; i++) {\n"
        "            Thread t = new Thread(() -> { try { Thread.sleep(600_000); } catch (InterruptedException e) { } });\n"
        "            t.setDaemon(true); t.start();\n"
        "        }"))
    honest = hostile(tmp_path, name="honest")
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        bombed, fair = pool.map(lambda sub: grader.grade("buffer", sub, tmp_path / f"out-{sub.name}", rubric=LIGHT),
                                (bomb, honest))
    assert bombed.score == 0, bombed.report()
    assert fair.score == 10, fair.report()
    assert jailed_processes() == []


@pytest.mark.full("waits out a checker's whole budget, twice", seconds=45)
def test_a_class_that_blocks_the_checker_fails_instead_of_pending(tmp_path, monkeypatch):
    """'Pending' on demand (issue 51): a daemon thread that holds System.err's monitor for ever blocks the
    checker's own printing, so no verdict comes, twice, and the grade used to be pending, on every regrade.
    The kit's own class, checked the same way right after, finishes: the failure is the submission's."""
    monkeypatch.setattr(grader.budgets, "TEST_SECONDS", 12)  # the kit's 2 s stress run needs a few
    # through an array: the allow-list follows a lock only through locals, fields and methods of the class's own
    # (test_forgery_allowlist.py), so this one runs, and the rerun of the kit's class is what names it
    hold = ('        Object[] held = {System.err};\n'
            '        Thread t = new Thread(() -> { synchronized (held[0]) { while (true) { try { Thread.sleep(1000); }'
            ' catch (InterruptedException e) { } } } });\n'
            '        t.setDaemon(true);\n        t.start();')
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=hold))
    stress = g.tests[2]
    assert stress.score == 0 and not stress.pending and not g.pending, report
    assert "kept the stress check from finishing" in stress.output and "MonitorBuffer" in stress.output, report


def test_lincheck_failing_beside_a_submissions_own_threads_is_its_failure_not_pending(tmp_path, monkeypatch):
    """Lincheck's replay going another way ("Non-determinism found") is Lincheck's own failure, pending a regrade,
    unless the submitted bytecode starts threads of its own, which Lincheck neither schedules nor repeats: then it is
    the class's doing, a failure with that reason, never pending (a submission must not be able to force regrades).
    The verdict is Lincheck's words as the checker writes them; the threads are read from the submission's bytecode."""
    from grader.kinds import checker
    said = {"verdict": "error", "detail": "Lincheck failed itself (\"Non-determinism found\": replaying its schedule "
                                          "gave another run); no verdict on the class"}
    monkeypatch.setattr(checker, "_verdict", lambda *a, **k: (dict(said), ""))
    rubric = {**grader.rubric.data("buffer"), "test": [
        {"name": "hidden: Lincheck", "kind": "checker", "checker": "lincheck", "like": "MonitorBuffer", "points": 10}]}
    flipper = hostile(tmp_path, static="        new Thread(() -> { }).start();", name="threads")
    g = grader.grade("buffer", flipper, tmp_path / "out-threads", rubric=rubric)
    t = g.tests[0]
    assert t.score == 0 and not t.pending and not g.pending, t.output
    assert "starts threads of its own" in t.output and "calls java/lang/Thread.start" in t.output
    g = grader.grade("buffer", hostile(tmp_path, name="plain"), tmp_path / "out-plain", rubric=rubric)
    assert g.tests[0].pending and g.tests[0].score == 0, g.tests[0].output  # no thread of its own: Lincheck's failure
