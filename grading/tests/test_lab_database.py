"""Grading the database lab: its reference, its starter and its samples get the marks expected.toml records, every
run, and each report says what the sample got wrong."""
import json
import sys
from pathlib import Path

import pytest

import grader

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import BATCH_FULL, _batch, _selected, _expected  # noqa: E402


DATABASE = {
    "starter": "a group lists a user who was deleted",
    "correct": "Passed",
    "join_no_user_lock": "a group lists a user who was deleted",
    "add_no_lock": "an event, or its calendar, outlives its owner",
    "delete_group_first": "the requests hang",
    "one_lock": "one lock for the whole database",
    "keeps_lock": "does a refused request keep a lock?",
}


@pytest.fixture(scope="module")
def database_batch(tmp_path_factory, request):
    return _batch(tmp_path_factory, "database",
                  _selected(request, "test_each_database_sample_gets_its_marks_and_feedback_that_names_its_slip"))


@pytest.mark.xdist_group("database-batch")  # one worker, so the batch is graded once
@pytest.mark.parametrize("sample", [s if s in ("correct", "join_no_user_lock") else pytest.param(
    s, marks=pytest.mark.full(BATCH_FULL, seconds=30, unit="database-batch")) for s in DATABASE])
def test_each_database_sample_gets_its_marks_and_feedback_that_names_its_slip(database_batch, sample):
    results = json.loads((database_batch / sample / "results.json").read_text())
    report = (database_batch / sample / "report.md").read_text()
    assert [t["score"] for t in results["tests"]] == _expected("database", sample), report
    assert DATABASE[sample] in report, report
    if _expected("database", sample)[1] == 0:  # the race probe's catch, drawn as swimlanes: the held request, the delete
        assert "your StudentDatabase under races" in report and "| # | user 1 | user 2 |" in report, report
        assert "(the probe holds it there)" in report, report
    elif _expected("database", sample)[2] == 0:  # the lock probe's: the held request and the one for other entities
        assert "your StudentDatabase under locks" in report and "they share no user, group" in report, report


def test_the_database_labs_probes_are_the_catalogs():
    """The lab's hidden tests check a student's database as `./lab check java` checks the kit's: the catalogued
    buggy databases are the samples' slips, and each fails as catalogued (java/tests/test_java_checks.py runs them)."""
    from handofflab.ground import catalog
    cat = catalog.load()
    tests = [t for t in grader.load_rubric("database").tests if t.kind == "checker"]
    assert {t.like for t in tests} == {"CalendarDatabase"} and cat.variant("CalendarDatabase").class_kind == "database"
    buggy = {v.name: v for v in cat.variants.values() if v.handoff.name == "CalendarDatabase" and not v.correct}
    assert set(buggy) == {"DatabaseJoinNoUserLock", "DatabaseAddNoLock", "DatabaseDeleteGroupFirst", "DatabaseOneLock"}
    assert {t.checkers for t in tests} == {("races",), ("races", "locks")}
    # each catalogued slip loses the marks its sample loses: the race probe's, or only the per-entity locks'
    samples = {"DatabaseJoinNoUserLock": "join_no_user_lock", "DatabaseAddNoLock": "add_no_lock",
               "DatabaseDeleteGroupFirst": "delete_group_first", "DatabaseOneLock": "one_lock"}
    for variant, sample in samples.items():
        caught = [all(buggy[variant].expected(c) == "pass" for c in t.checkers) for t in tests]
        assert [m > 0 for m in _expected("database", sample)[1:]] == caught, variant
