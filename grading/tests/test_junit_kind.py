"""grader/kinds/junit.py: a public test past JUnit's own time limit while other work kept the grading machine
busy is run once more, and past it again, busy again, is "not graded, regrade"; on a quiet machine it fails; a
test that failed otherwise fails whatever the load."""
import os
from types import SimpleNamespace

import pytest

import grader
from grader import budgets
from grader.kinds import junit


@pytest.mark.parametrize("busy, message, pending", [
    (True, "oneThreadSeesAFifo() timed out after 5 seconds", True),
    (False, "oneThreadSeesAFifo() timed out after 5 seconds", False),
    (True, "expected: <1> but was: <2>", False),
])
def test_a_test_past_its_time_on_a_busy_machine_is_regraded_then_pending(tmp_path, monkeypatch, busy, message, pending):
    others = (os.cpu_count() or 1) * budgets.BUSY_CORES * 2 if busy else 0.0
    runs = []

    def fake_junit(jail, cp, scan, reports, props=(), timeout=None):
        runs.append(reports)
        return (SimpleNamespace(timed_out=False, others_cores=others, output="", returncode=0),
                [("oneThreadSeesAFifo", False, message), ("putWaitsForRoomAndTakeForAnItem", True, "")])

    monkeypatch.setattr(junit.junit_launcher, "junit", fake_junit)
    monkeypatch.setattr(junit.javabuild, "classpath", lambda module="checks": "")
    jail = SimpleNamespace(run=lambda cmd, timeout=None: SimpleNamespace(returncode=0, output=""))
    results = junit._run(grader.load_rubric("buffer"), tmp_path, tmp_path, jail)
    ok, said, was_pending = results["oneThreadSeesAFifo"]
    assert not ok and was_pending == pending and results["putWaitsForRoomAndTakeForAnItem"][:1] == (True,)
    assert len(runs) == (2 if busy and "timed out" in message else 1)
    assert said.startswith("Not graded:" if pending else "Failed:") and ("regrade" in said) == pending
