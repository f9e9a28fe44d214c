"""With HANDOFFLAB_ISOLATION=weak the grading suites run as a host without namespaces would run
them: every grading is then allowed the weak level (as `--allow-weak-isolation` does), and each
test still holds the grader to the same marks (the allow-list does not depend on the host)."""
import functools
import json
import os
from pathlib import Path

import pytest

import grader


FORCED_WEAK = os.environ.get("HANDOFFLAB_ISOLATION") == "weak"


@pytest.fixture(autouse=True)
def _weak_isolation_allowed(monkeypatch):
    if FORCED_WEAK:
        weak = functools.partial(grader.grading.grade, allow_weak_isolation=True)
        monkeypatch.setattr(grader, "grade", weak)            # what the tests call
        monkeypatch.setattr(grader.grading, "grade", weak)    # what grade_batch and reruns call
    yield


def _gradescope_results(folder: Path) -> dict:
    """A grading's results.json, held to Gradescope's schema: every test has its name, score,
    max_score, status, output and visibility, and its status follows its score."""
    results = json.loads((folder / "results.json").read_text())
    assert {"score", "max_score", "tests"} <= results.keys()
    for t in results["tests"]:
        assert {"name", "score", "max_score", "status", "output", "visibility"} <= t.keys()
        assert t["status"] == ("passed" if t["score"] == t["max_score"] else "failed")
    return results


@pytest.fixture
def gradescope_results():
    """_gradescope_results, for the test modules (under --import-mode=importlib they cannot import each other)."""
    return _gradescope_results
