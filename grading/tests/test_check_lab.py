"""`./lab check-lab` is the grader's own judgement, before submission: on every sample of expected.toml it gives each
test it runs the marks `./lab grade` gives (the tests a rubric withholds aside, each named with its reason), in its
quick mode, so that no bug the grader fails goes unnamed on the student's side."""
import pytest

import grader
from handofflab import paths
from handofflab.commands import student, verify

SUBMISSIONS = paths.GRADING / "tests" / "submissions"
SAMPLES = [(lab, name) for lab, marks in verify.sample_marks().items() for name in marks]


def _path(lab: str, name: str):
    return paths.LABS / lab / "starter" if name == "starter" else SUBMISSIONS / lab / name


@pytest.mark.full("every sample of every lab graded once more, as check-lab grades it (about 15 s each)", seconds=15)
@pytest.mark.parametrize("lab, name", SAMPLES, ids=[f"{lab}/{name}" for lab, name in SAMPLES])
def test_check_lab_gives_every_sample_the_graders_marks(lab, name, tmp_path):
    rubric, notes = student.student_rubric(lab, full=False)
    every = grader.load_rubric(lab).tests
    want = [m for m, t in zip(verify.sample_marks()[lab][name], every) if not t.withheld]
    g = grader.grade(lab, _path(lab, name), tmp_path, rubric=rubric)
    if g.pending:  # the machine's load, never the submission's: the grade would be pending too
        pytest.skip(f"not judged here (the machine too busy): {[t.name for t in g.tests if t.pending]}")
    got = [t.score for t in g.tests]
    joint = {t.kind for t in every if t.withheld}  # scored with the withheld ones: a mark here may be lost there
    assert all(m == w or (m > w and t.kind in joint) for m, w, t in zip(got, want, rubric.tests)), g.report()
    assert got == want or any("not the whole rule here" in n for n in notes)
    assert len(notes) >= len(every) - len(rubric.tests)  # each withheld test named
