"""`./lab check-lab` is the grader's own judgement, before submission: on every sample of expected.toml it gives each
test it runs the marks `./lab grade` gives (the tests a rubric withholds aside, each named with its reason), with the
grader's durations and, where they differ, in its quick mode, so that no bug the grader fails goes unnamed on the
student's side; and a walk through each lab in a fresh copy of it."""
import sys
from pathlib import Path

import pytest

import grader
from handofflab.ground import paths
from handofflab.commands import copycheck, student, verify

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import regraded_while_pending  # noqa: E402

SUBMISSIONS = paths.GRADING / "tests" / "submissions"
# every sample with the grader's durations (--full), and the PHT lab's again in the quick mode, the only lab whose
# quick mode differs (its stress run of 9 s cut to 3): what the student's watch loop says must name the same bugs
SAMPLES = [(lab, name, True) for lab, marks in verify.sample_marks().items() for name in marks] \
    + [("pht", name, False) for name in verify.sample_marks()["pht"]]


def _path(lab: str, name: str):
    return paths.LABS / lab / "starter" if name == "starter" else SUBMISSIONS / lab / name


@pytest.mark.full("every sample of every lab graded once more, as check-lab grades it (about 15 s each)", seconds=15)
@pytest.mark.parametrize("lab, name, full", SAMPLES,
                         ids=[f"{lab}/{name}" + ("" if full else "/quick") for lab, name, full in SAMPLES])
def test_check_lab_gives_every_sample_the_graders_marks(lab, name, full, tmp_path):
    rubric, notes = student.student_rubric(lab, full=full)
    every = grader.load_rubric(lab).tests
    want = [m for m, t in zip(verify.sample_marks()[lab][name], every) if not t.withheld]
    # pending is the machine's load, never the submission's: graded again, in a quiet turn, as an instructor would
    g = regraded_while_pending(lambda attempt: grader.grade(lab, _path(lab, name), tmp_path / f"out-{attempt}",
                                                            rubric=rubric))
    got = [t.score for t in g.tests]
    joint = {t.kind for t in every if t.withheld}  # scored with the withheld ones: a mark here may be lost there
    assert all(m == w or (m > w and t.kind in joint) for m, w, t in zip(got, want, rubric.tests)), g.report()
    assert got == want or any("not the whole rule here" in n for n in notes)
    assert len(notes) >= len(every) - len(rubric.tests)  # each withheld test named


def _walk(lab: str) -> tuple[str, str]:
    """(a sample that loses a mark check-lab judges, the reference) for a lab's walk: the first such sample of
    expected.toml, or the starter."""
    every = grader.load_rubric(lab).tests
    marks = verify.sample_marks()[lab]
    buggy = next(n for n, m in marks.items() if n != "correct"
                 and any(x < t.points for x, t in zip(m, every) if not t.withheld))
    return buggy, "correct"


@pytest.mark.full("a fresh copy of each lab, built, then two check-labs and two gradings (about 80 s a lab)", seconds=80)
@pytest.mark.parametrize("lab", sorted(verify.sample_marks()))
def test_a_student_walks_each_lab_in_a_fresh_copy_of_it(lab, make_copy, in_copy, tmp_path):
    """The student's path in a copy of the one lab: `check-lab` on a buggy file names each check that fails it, with
    the exit code saying so; on the reference, every check passes; and `./lab grade` on the same files gives each
    test check-lab ran its marks (a test scored together with a withheld one at most as many)."""
    import json
    copy = make_copy(tmp_path / "copy" / "kit", [lab])
    assert copycheck.foreign_mentions(copy) == []  # the copy of this lab alone names only what it holds
    rubric, _ = student.student_rubric(lab, full=False)
    for name in _walk(lab):
        path = paths.SPECS / "Pipes.tla" if (lab, name) == ("pipes-spec", "correct") else _path(lab, name)
        run = in_copy(copy, "check-lab", lab, str(path), results=tmp_path / name)
        assert "Traceback" not in run.stderr, run.stderr
        checked = json.loads((tmp_path / name / "check-lab" / lab / "results.json").read_text())["tests"]
        graded = grader.grade(lab, path, tmp_path / f"graded-{name}")
        by_name = {t.name: t.score for t in graded.tests}
        joint = {t.kind for t in grader.load_rubric(lab).tests if t.withheld}
        for t, c in zip(rubric.tests, checked):
            assert c["score"] == by_name[t.name] or (c["score"] > by_name[t.name] and t.kind in joint), (name, t.name)
            assert f"{'pass' if c['score'] == c['max_score'] else 'FAIL'} {t.name}" in run.stdout, run.stdout
        lost = any(c["score"] < c["max_score"] for c in checked)
        assert run.returncode == (1 if lost else 0) and lost == (name != "correct"), (name, run.stdout)
