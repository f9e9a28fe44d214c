"""Grading the calendar lab: its reference, its starter and its samples get the marks expected.toml records, every
run, and each report says what the sample got wrong."""
import json
import sys
from pathlib import Path

import pytest

import grader

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import BATCH_FULL, _batch, _selected, _expected  # noqa: E402


# What each calendar sample's report must say: the feedback names what the counterexample shows.
CALENDAR = {
    "starter": "no ordering of the requests",
    "correct": "Passed",
    "sync_entry": "Passed",
    "one_lock": "one lock for the whole store",
    "check_then_lock": "no ordering of the requests",
    "delete_no_lock": "no ordering of the requests",
    "recreate": "a move after the delete is refused",
    "keeps_lock": "waits for an event's lock that is never released",
    "mixed_locks": "no ordering of the requests",
    # below 128 a boxed id is one cached object; the checks' events are 1000 and up (issue 47)
    "boxed_id": "no ordering of the requests",
}


@pytest.fixture(scope="module")
def calendar_batch(tmp_path_factory, request):
    return _batch(tmp_path_factory, "calendar",
                  _selected(request, "test_each_calendar_sample_gets_its_marks_and_feedback_that_names_its_slip"))


# The default tier grades a slip Lincheck catches (its grading runs every check the reference passes); the full tier
# every sample, the reference too, in one batch.


@pytest.mark.xdist_group("calendar-batch")  # one worker, so the batch is graded once
@pytest.mark.parametrize("sample", [s if s == "check_then_lock" else pytest.param(
    s, marks=pytest.mark.full(BATCH_FULL, seconds=90, unit="calendar-batch")) for s in CALENDAR])
def test_each_calendar_sample_gets_its_marks_and_feedback_that_names_its_slip(calendar_batch, sample):
    results = json.loads((calendar_batch / sample / "results.json").read_text())
    report = (calendar_batch / sample / "report.md").read_text()
    assert [t["score"] for t in results["tests"]] == _expected("calendar", sample), report
    assert CALENDAR[sample] in report, report
    if sample not in ("correct", "sync_entry", "recreate", "one_lock"):  # Lincheck's catches are drawn as swimlanes
        assert "your StudentStore under lincheck" in report and "| # | Thread 1 | Thread 2 |" in report, report
    if _expected("calendar", sample)[-1] == 0:  # and the lock probe's: the held request, and the one sent beside it
        assert "your StudentStore under locks" in report and "| # | user 1 | user 2 |" in report, report
        assert "is held at its commit" in report, report


def test_the_calendar_labs_lincheck_is_the_catalogs(tmp_path):
    """The lab's hidden test checks a student's store as `./lab check java` checks the kit's: the catalogued
    buggy stores are the samples' slips, and each fails as catalogued (java/tests/test_java_checks.py runs them)."""
    from handofflab.ground import catalog
    cat = catalog.load()
    like = next(t.like for t in grader.load_rubric("calendar").tests if t.kind == "checker")
    assert cat.variant(like).class_kind == "store" and cat.variant(like).correct
    buggy = {v.name for v in cat.variants.values() if v.handoff.name == like and not v.correct}
    assert buggy == {"StoreCheckThenLock", "StoreDeleteNoLock", "StoreRecreate", "StoreOneLock"}
    assert {t.checkers for t in grader.load_rubric("calendar").tests if t.kind == "checker"} == {("lincheck",), ("locks",)}
