"""A grade never from the machine's load: a checker that cannot finish in its budget, or fails itself, is
pending, not failed; a stress run that finishes no trial is never a pass, and one starved by other work is pending
while a slow or greedy class is not; a spinning handoff cannot slow the kit's own server runs, which are JVMs
without the submission; a reply later than the client waits, or runs past their budget without a loss, are
pending, not a loss."""
import re
import sys
from pathlib import Path

import pytest

import grader
from grader import jail
from handofflab.java import javacheck

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from hostilegrading import LIGHT, grade, results_json  # noqa: E402
from labgrading import SAMPLES  # noqa: E402


def test_a_checker_that_cannot_finish_in_its_budget_is_pending_not_failed(tmp_path, monkeypatch):
    """A budget too small for this machine stands for a machine too busy: the check is tried
    again with twice the budget, then reported as not graded (pending), never as the student's fault."""
    monkeypatch.setattr(grader.budgets, "TEST_SECONDS", 0.5)
    rubric = {**LIGHT, "test": [{"name": "hidden: stress", "kind": "checker", "checker": "stress", "like": "MonitorBuffer", "seconds": 1,
                                 "points": 10}]}
    g = grader.grade("buffer", SAMPLES / "buffer" / "correct", tmp_path / "out", rubric=rubric)
    data = results_json(tmp_path / "out")
    assert g.pending and data["extra_data"]["pending"] == ["hidden: stress"]
    assert "too busy" in g.tests[0].output and "regrade" in g.tests[0].output
    # Gradescope shows a test as passed or failed only: the pending one says so in its name and at the top
    assert data["tests"][0]["name"].endswith("NOT GRADED (machine too busy): pending a regrade")
    assert data["output"].startswith("**Not fully graded.** 1 test(s) could not be judged") and "hidden: stress" in data["output"]


def test_a_checker_that_fails_itself_is_pending_not_the_students_fault(tmp_path, monkeypatch):
    """A checker's own failure (Lincheck's "Non-determinism found", its verdict "error") says nothing
    about the class: not graded, regrade. Only "error:Initializer" (the class did not load) is the class's."""
    from grader.kinds import checker as checker_kind
    failed = {"verdict": "error", "detail": "Lincheck failed itself (\"Non-determinism found\")"}
    monkeypatch.setattr(checker_kind, "_verdict", lambda *a, **k: (failed, ""))
    rubric = {**LIGHT, "test": [{"name": "hidden: lincheck", "kind": "checker", "checker": "lincheck", "like": "MonitorBuffer",
                                 "points": 10}]}
    g = grader.grade("buffer", SAMPLES / "buffer" / "correct", tmp_path / "out", rubric=rubric)
    assert g.pending and g.tests[0].score == 0 and g.tests[0].pending, g.report()
    assert "failed itself" in g.tests[0].output and "regrade" in g.tests[0].output


@pytest.mark.parametrize("kit_finishes, other_work", [
    pytest.param(True, 0.0, marks=pytest.mark.full("a stress run waited out, and the kit's run beside it", seconds=20)),
    (True, 1.5),  # the default tier: pending beside other work, the rule a busy CI meets
    pytest.param(False, 0.0, marks=pytest.mark.full("a stress run waited out, and the kit's run beside it", seconds=17))])
def test_a_stress_run_that_finishes_no_trial_is_never_a_pass(tmp_path, monkeypatch, kit_finishes, other_work):
    """A stress trial stopped at its budget is no verdict (it once reported "pass ... each exactly
    once" after 171 handoffs): with no trial finished, the run is "incomplete", tried again with
    twice the seconds. Then the kit's own class is checked the same way: when it finishes on a machine
    nothing else used, the slowness is the submission's (a put that sleeps 1 ms: a failure, named, not
    "pending" on demand, issue 51); when other work kept cores busy meanwhile, or the kit's class cannot
    finish either, the machine was to blame, and the grade is pending. The machine's state is set here
    (test_hostile_jail.py measures it): this suite runs beside other work."""
    from grader.kinds import checker as checker_kind
    if not kit_finishes:
        monkeypatch.setattr(checker_kind, "_kit_finishes", lambda *a, **k: None)
    monkeypatch.setattr(jail.Run, "others_cores", property(lambda run: other_work))
    slow = tmp_path / "slow"
    slow.mkdir()
    src = (SAMPLES / "buffer" / "correct" / "StudentBuffer.java").read_text()
    marker = "public synchronized void put(T item) throws InterruptedException {"
    assert marker in src
    (slow / "StudentBuffer.java").write_text(src.replace(marker, marker + "\n        Thread.sleep(1);", 1))
    rubric = {**LIGHT, "test": [{"name": "hidden: stress", "kind": "checker", "checker": "stress", "like": "MonitorBuffer", "seconds": 0.5,
                                 "points": 10}]}
    g = grader.grade("buffer", slow, tmp_path / "out", rubric=rubric)
    slow_by_itself = kit_finishes and not other_work
    assert g.pending == (not slow_by_itself) and g.tests[0].score == 0, g.report()
    assert "finished no trial, twice" in g.tests[0].output and "incomplete" not in g.tests[0].output[:40]
    assert ("too slow for the stress check" in g.tests[0].output) == slow_by_itself, g.tests[0].output
    assert ("other work on the grading machine kept 1.5 of its" in g.tests[0].output) == bool(other_work)


def test_a_stress_run_starved_by_other_work_is_pending_and_a_slow_or_greedy_class_is_not():
    """Who kept a stress run from finishing a trial: its threads waited for a core longer than they ran while the
    checker's JVM used little of the machine (other work took the cores: pending); a class that sleeps is never
    waiting for a core (its own slowness: a failure); one whose own threads eat every core starved itself."""
    def stats(ran, waited, cpu, wall=10.0, cores=2):
        return {"trial_cpu_s": ran, "trial_runqueue_s": waited, "process_cpu_s": cpu, "wall_s": wall, "cores": cores}
    assert javacheck.starved(stats(ran=5.0, waited=16.8, cpu=12.6, wall=11.2))  # measured beside 5 busy loops
    assert not javacheck.starved(stats(ran=0.3, waited=0.01, cpu=1.0))      # a put that sleeps 1 ms
    assert not javacheck.starved(stats(ran=0.2, waited=0.4, cpu=0.3, wall=1.5))  # the same, in a CI run
    assert not javacheck.starved(stats(ran=0.5, waited=0.8, cpu=0.9, wall=7.0))  # a put that naps, in CI
    assert not javacheck.starved(stats(ran=5.0, waited=12.0, cpu=19.5))     # its own spinning threads
    assert not javacheck.starved(stats(ran=0, waited=0, cpu=0))             # not Linux: not known, not pending
    assert not javacheck.starved({})


@pytest.mark.full("a server-lab grading beside a spinning class", seconds=68)
def test_a_handoff_that_spins_while_the_kits_runs_cannot_slow_them(tmp_path):
    """The server lab's baseline ran in the submission's JVM (issue 51): a handoff whose own threads spin and
    allocate whenever it is idle, i.e. while the kit's MonitorBuffer runs beside it, dropped the kit to 0.3
    efficiency and earned the efficiency marks for a slow handoff. Each run is now a JVM of its own and the
    kit's hold no submitted class: this one (a put that sleeps 2 ms: about a fifth of the bound
    alone; in one JVM with the kit's runs, measured, the kit's fell from 0.94 to 0.68-0.79) is judged against an
    unhindered kit, and fails the efficiency test."""
    src = (SAMPLES / "server" / "correct" / "StudentHandoff.java").read_text()
    marker = "    @Override\n    public synchronized void put(T item) throws InterruptedException {\n"
    assert marker in src
    spinner = """    private static volatile long used = System.nanoTime();
    private static int puts;

    static {
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                long[] junk = new long[0];
                while (true) {
                    if (System.nanoTime() - used > 50_000_000L) {
                        junk = new long[1 << 17];   // idle: burn a core, and the allocator, for whoever runs beside
                    } else {
                        try { Thread.sleep(1); } catch (InterruptedException e) { return; }
                    }
                }
            });
            t.setDaemon(true);
            t.start();
        }
    }

"""
    # slow by its own code (2 ms asleep in every put: about a fifth of the kit's efficiency, far under the bar of a half)
    slow = marker + "        used = System.nanoTime();\n        puts++;\n        Thread.sleep(2);\n"
    sub = tmp_path / "spins_beside"
    sub.mkdir()
    (sub / "StudentHandoff.java").write_text(src.replace(marker, spinner + slow, 1))
    g = grader.grade("server", sub, tmp_path / "out")
    exactly_once, efficiency = _server_tests(g)
    # (its stress test, no concern here, may be pending beside other work: a put that sleeps finishes no trial)
    assert exactly_once.score == exactly_once.max_score and not exactly_once.pending, g.report()
    assert efficiency.score == 0 and not efficiency.pending, g.report()


def test_the_kits_server_runs_are_jvms_without_the_submission(tmp_path):
    """What keeps the judge's measurement apart from the judged, read from the commands the jail runs: every run
    is a JVM of its own with one point, only the submission's runs have its classes on the class path, and the
    two sides take turns. (In one JVM, the class's own threads ran beside the kit's runs.)"""
    from types import SimpleNamespace

    from grader.kinds import server
    rubric = grader.load_rubric("server")
    commands = []

    class Jail:
        def run(self, cmd, timeout, stdin=None):
            commands.append(cmd)
            main = cmd.index("handofflab.servers.ServerBench")
            Path(cmd[main + 1]).write_text("design,rep,efficiency,status,workers,slots\n"
                                           f"{cmd[-1].split(':')[0]},1,0.9,ok,50,101\n")
            return jail.Run(0, "", 0.1, False, False)

    ctx = SimpleNamespace(rubric=rubric, tmp=tmp_path, jail=Jail())
    _, rows = server._bench(ctx)
    runs = int(rubric.server["runs"])
    assert len(commands) == 3 * runs and len(rows) == 3 * runs
    for cmd in commands:
        main = cmd.index("handofflab.servers.ServerBench")
        classpath = cmd[cmd.index("-cp") + 1]
        point = cmd[main + 5:]
        assert len(point) == 1 and cmd[main + 2] == "1", cmd   # one point, one run, per JVM
        assert (str(tmp_path / "classes") in classpath) == ("@" in point[0]), cmd
    assert ["@" in c[-1] for c in commands[:3]] == [True, False, True]   # yours, the kit's, yours on the full ring
    assert [r["rep"] for r in rows] == [str(1 + i // 3) for i in range(3 * runs)]


def _server_tests(g) -> list:
    """The server lab's TCP tests (the `server` kind), beside its public and stress tests."""
    return [t for t, spec in zip(g.tests, grader.load_rubric("server").tests) if spec.kind == "server"]


@pytest.mark.full("server runs that wait out the clients' time limit", seconds=16)
def test_a_reply_later_than_the_clients_wait_is_pending_not_a_loss(tmp_path):
    """A client counts a reply it waited SERVER_REPLY_MS for in vain as lost; on a busy machine a correct
    handoff's reply can come later (a spinning sample did so beside two test runs). The server's ledger
    decides: every connection taken by one worker and served after the client gave up is late, so the
    grade is pending. A worker that holds its 1 000th connection 3.5 s stands for the busy machine."""
    late = tmp_path / "late"
    late.mkdir()
    src = (SAMPLES / "server" / "correct" / "StudentHandoff.java").read_text()
    marker = "public synchronized T take() throws InterruptedException {"
    assert marker in src
    (late / "StudentHandoff.java").write_text(src.replace(marker, """public T take() throws InterruptedException {
        T item = takeNow();
        if (thousandth()) {
            Thread.sleep(3_500);
        }
        return item;
    }

    private static int takes;

    private static synchronized boolean thousandth() {
        return ++takes == 1000;
    }

    @SuppressWarnings("unchecked")
    private synchronized T takeNow() throws InterruptedException {""", 1))
    g = grader.grade("server", late, tmp_path / "out")
    server = _server_tests(g)
    assert g.pending and all(t.pending and t.score == 0 for t in server), g.report()
    assert "later than 3 s" in server[0].output and "regrade" in server[0].output, server[0].output
    assert re.search(r"\| late: \d+ replies came after 3000 ms", server[0].output), server[0].output


@pytest.mark.full("server runs held past their budget", seconds=15)
def test_server_runs_past_their_budget_without_a_loss_are_pending_not_failed(tmp_path, monkeypatch):
    """A hang shows as a request lost within SERVER_REPLY_MS and ends the runs at once; runs
    that are merely slow (a budget too small for this machine) are not graded, never failed."""
    monkeypatch.setattr(grader.budgets, "SERVER_SECONDS", 4)
    g = grader.grade("server", SAMPLES / "server" / "correct", tmp_path / "out")
    server = _server_tests(g)
    assert g.pending and all(t.pending and t.score == 0 for t in server), g.report()
    assert "too busy" in server[0].output and "regrade" in server[0].output
