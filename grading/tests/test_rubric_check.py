"""`./lab check rubric LAB`, which every export runs first: after an instructor changes a rubric, the handout's table
of points and the marks recorded for the starter and the samples either agree with what the grader now gives, or the
check names the file to update; `--record` updates them, and the export then carries the new known marks."""
import json
import shutil
import zipfile

import pytest

from grader import rubric
from handofflab.ground import paths
from handofflab.commands import gradescope, rubriccheck, verify
from handofflab.ground.console import LabError

LABS = sorted(p.parent.name for p in paths.LABS.glob("*/rubric.toml"))


@pytest.mark.parametrize("lab", LABS)
def test_each_handouts_table_shows_its_rubrics_points(lab):
    assert rubriccheck.handout_table(lab), f"labs/{lab}/README.md has no table with a `points` column"
    assert rubriccheck.check_handout(lab) == []


def _points_moved(monkeypatch, lab: str, moves: dict[int, float]) -> None:
    """The lab's rubric as an instructor changes it: test i's points set to moves[i] (read by every loader)."""
    data = rubric.data(lab)
    for i, points in moves.items():
        data["test"][i]["points"] = points
    real = rubric.data
    monkeypatch.setattr(rubric, "data", lambda name: data if name == lab else real(name))


def test_a_points_change_is_named_in_the_handout_and_recorded_when_asked(monkeypatch, tmp_path):
    _points_moved(monkeypatch, "database", {0: 4, 2: 1})
    handout = tmp_path / "README.md"
    shutil.copyfile(paths.LABS / "database" / "README.md", handout)
    wrong = rubriccheck.check_handout("database", handout=handout)
    assert len(wrong) == 2 and "shows 3 point(s), the rubric gives 4" in wrong[0], wrong
    assert rubriccheck.check_handout("database", record=True, handout=handout) == []
    assert [shown for _, _, shown in rubriccheck.handout_table("database", handout)] == ["4", "5", "1"]
    assert rubriccheck.check_handout("database", handout=handout) == []


@pytest.mark.full("grades the database lab's starter and six samples twice with a changed rubric (about 3 min)",
                  seconds=200)
def test_after_a_points_change_the_export_refuses_until_the_new_marks_are_recorded(monkeypatch, tmp_path, capsys):
    _points_moved(monkeypatch, "database", {0: 4, 2: 1})
    expected = tmp_path / "expected.toml"
    shutil.copyfile(verify.EXPECTED, expected)
    monkeypatch.setattr(verify, "EXPECTED", expected)
    with pytest.raises(LabError) as refused:
        gradescope.export("database")
    said = refused.value.problem + refused.value.fix
    assert "database/starter: the grader now gives [4, 0, 0], " in said and "says [3, 0, 0]" in said, said
    assert "labs/database/README.md" in said and "--record" in said, said
    handout = tmp_path / "README.md"
    shutil.copyfile(paths.LABS / "database" / "README.md", handout)
    rubriccheck.check("database", record=True, handout=handout)  # the grader's marks, written down
    marks = verify.sample_marks()["database"]
    assert marks["starter"] == [4, 0, 0] and marks["correct"] == [4, 5, 1], marks
    assert "# every request alone is right" in expected.read_text(), "the file's comments are kept"
    with zipfile.ZipFile(gradescope.export("database", check=False)) as z:  # the check passed just above
        known = json.loads(z.read("known-marks.json"))
    assert known == {"submission": "labs/database/starter", "marks": [4, 0, 0]}  # what its setup.sh will see
