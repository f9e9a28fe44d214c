"""expected.toml is the one list of the samples' marks, and `./lab verify-verdicts` reruns them: pending is
regraded, never counted as held."""
import os
import sys
from pathlib import Path


import grader
from handofflab.ground import paths

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)


def test_every_sample_has_its_expected_marks_and_every_entry_a_sample():
    from handofflab.commands import verify
    marks = verify.sample_marks()
    folders = {(p.parent.name, p.name) for p in (paths.GRADING / "tests" / "submissions").glob("*/*") if p.is_dir()}
    listed = {(lab, name) for lab, samples in marks.items() for name in samples if name != "starter"}
    assert folders == listed
    for lab, samples in marks.items():
        tests = grader.load_rubric(lab).tests
        for name, expected in samples.items():
            assert verify.sample_path(lab, name).is_dir(), (lab, name)
            assert len(expected) == len(tests), (lab, name)


def test_verify_verdicts_counts_agreeing_runs(capsys):
    from handofflab.commands import verify
    assert verify.run(runs=2, busy=1, only="buffer/wrong_package") == 0  # one lab's sample, not every lab's
    assert "2/2" in capsys.readouterr().out
    counted = (verify.OUT / "verdicts-buffer_wrong_package.csv").read_text()  # a part's counts in a file of its own
    assert counted.count("\n") == 2 and "grade,buffer,wrong_package," in counted and ",2,0,2," in counted


def test_verify_verdicts_regrades_a_pending_grading_and_never_counts_it_as_held(monkeypatch, capsys):
    """A grading that says "not graded, regrade" (a busy machine: the server lab's spinning sample beside CI's busy
    loop) is graded again, as an instructor would; pending every time, it is said apart, neither held nor broken;
    a graded test that differs from the claim is a failure however many tests were pending."""
    from handofflab.commands import verify
    claim = verify.sample_marks()["buffer"]["correct"]
    pending = [None, *claim[1:]]
    calls = []
    monkeypatch.setattr(verify, "_once", lambda *a: calls.append(a) and None or (pending if len(calls) < 3 else claim))
    assert verify.run(runs=1, busy=0, only="buffer/correct") == 0 and len(calls) == 3
    out = capsys.readouterr().out
    assert "verify-verdicts: 1 passed, 0 failed" in out and "not fully judged" not in out
    monkeypatch.setattr(verify, "_once", lambda *a: pending)
    assert verify.run(runs=1, busy=0, only="buffer/correct") == 0
    out = capsys.readouterr().out
    assert "0 passed, 0 failed, 1 not fully judged (machine too busy)" in out and "3 times in a row" in out
    monkeypatch.setattr(verify, "_once", lambda *a: [*pending[:-1], claim[-1] + 1])
    assert verify.run(runs=1, busy=0, only="buffer/correct") == 1
    assert "0 passed, 1 failed" in capsys.readouterr().out


def test_verify_verdicts_calls_a_check_with_no_verdict_on_a_busy_machine_unjudged(monkeypatch, capsys):
    """A stress check that finished no trial twice while other work kept the grader's share of the cores busy is
    no verdict by the grader's rule (FastBuffer beside a CI run's two busy loops: 13 069 handoffs in 6 s); on a
    quiet machine the same "incomplete" is a claim broken."""
    import os

    from handofflab.java import javacheck
    from handofflab.commands import verify

    def outcome(stats):
        return lambda v, checker: javacheck.JavaOutcome(v.name, checker, v.expected(checker), "incomplete",
                                                        "no trial finished", 0.0, stats)
    monkeypatch.setattr(javacheck, "check_pair", outcome({"others_cores": 2.0 * (os.cpu_count() or 1)}))
    assert verify.run(runs=1, busy=0, only="stress") == 0
    out = capsys.readouterr().out
    assert "0 passed, 0 failed" in out and "not fully judged (machine too busy)" in out
    monkeypatch.setattr(javacheck, "check_pair", outcome({"others_cores": 0.0}))
    assert verify.run(runs=1, busy=0, only="stress") == 1


def test_verify_verdicts_leaves_no_busy_loop_when_it_is_killed():
    """A verify-verdicts stopped by a signal runs no `finally`: its busy loops end by themselves, even
    one that had not started yet when its parent died."""
    import os
    import subprocess
    import sys
    import time
    parent = subprocess.Popen([sys.executable, "-c", "import time\nfrom handofflab.commands import verify\n"
                               "with verify._busy(1) as loops:\n    print(loops[0].pid, flush=True)\n    time.sleep(120)"],
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    pid = int(parent.stdout.readline())
    state = lambda: (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]  # noqa: E731
                     if Path(f"/proc/{pid}/stat").exists() else "gone")
    assert state() in ("R", "S"), "the loop runs while its parent does"
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30
    while state() not in ("gone", "Z") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert state() in ("gone", "Z"), f"the busy loop {pid} outlived its parent"
