"""With HANDOFFLAB_ISOLATION=weak the grading suites run as a host without namespaces would run
them: every grading is then allowed the weak level (as `--allow-weak-isolation` does), and each
test still holds the grader to the same marks (the allow-list does not depend on the host)."""
import functools
import os

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
