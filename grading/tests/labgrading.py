"""What the lab-grading tests (test_lab_*.py, test_labs.py) share: the samples, a grading read back, a sample's
expected marks (grading/tests/submissions/expected.toml), and a regrade as an instructor would."""
import json
import shutil
from contextlib import nullcontext
from pathlib import Path

import pytest

import grader
from handofflab.ground import paths
from handofflab.suite import turns

SAMPLES = Path(__file__).parent / "submissions"
LABS = sorted(p.parent.name for p in paths.LABS.glob("*/rubric.toml"))
# the full-tier reason of the calendar and database labs' batch tests
BATCH_FULL = "the lab's every sample, the reference too, graded in one batch (the default tier grades one slip)"


def grade(tmp_path, lab, submission):
    g = grader.grade(lab, submission, tmp_path / "out")
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["score"] == g.score and results["max_score"] == 10
    return [t.score for t in g.tests], (tmp_path / "out" / "report.md").read_text()


def _expected(lab: str, sample: str) -> list[float]:
    """A sample's marks from grading/tests/submissions/expected.toml, the one list of them."""
    from handofflab.commands import verify
    return verify.sample_marks()[lab][sample]


def _graded_as_an_instructor_would(tmp_path, lab: str, sample: str):
    """The LAB's SAMPLE graded until no test is "not graded, regrade" (a busy machine: the grader's rule), as an
    instructor would regrade it (regraded_while_pending). What each grading did grade is the grade a quiet machine
    gives, and what it did not is worth nothing yet."""
    expected = _expected(lab, sample)

    def judged_as_expected(g):
        assert all(t.score == 0 if t.pending else t.score == want for t, want in zip(g.tests, expected)), g.report()
    return regraded_while_pending(lambda attempt: grader.grade(lab, SAMPLES / lab / sample, tmp_path / f"out-{attempt}"),
                                  judged_as_expected)


def regraded_while_pending(grade_once, check_pending=lambda g: None):
    """grade_once(attempt) until its grade has no pending test, at most three times, each regrade in a quiet turn
    (suite/turns.py: the suite's other tests finish first); each pending grade is given to check_pending. Pending
    all three times, the test is skipped saying so: beside two busy loops a spinning class's stress run finished no
    trial three times, the last two with the suite waiting, and "not graded, regrade" is then the grader's right
    answer, with no mark to compare."""
    for attempt in range(3):
        with turns.quiet() if attempt else nullcontext():
            g = grade_once(attempt)
        if not g.pending:
            return g
        check_pending(g)
    pytest.skip("the grader said 'not graded, machine too busy' three times (its rule), twice with the suite's other "
                f"tests waiting: the marks were not compared; what it graded matched ({[t.name for t in g.tests if t.pending]})")


def _selected(request, test) -> list[str]:
    """The samples of `test` that this run selected (its tier, -k): a batch grades those and no more."""
    return [item.callspec.params["sample"] for item in request.session.items if item.originalname == test]


def _batch(tmp_path_factory, lab: str, samples) -> Path:
    """The named samples of the lab (the starter among them), graded two at a time as an instructor's batch would."""
    subs = tmp_path_factory.mktemp(f"{lab}-subs")
    for name in samples:
        shutil.copytree(paths.LABS / lab / "starter" if name == "starter" else SAMPLES / lab / name, subs / name)
    out = tmp_path_factory.mktemp(f"{lab}-out")
    grader.grade_batch(lab, subs, out, jobs=2)
    return out
