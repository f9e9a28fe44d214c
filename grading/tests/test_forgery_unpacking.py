"""Malformed submissions and hosts: a zip bomb, too many files, colliding names, a folder named like the
source, a grader that fails, a host that cannot isolate (refused unless allowed, then said everywhere), hidden tests
until published. Each still gives a valid results.json that says what happened."""
import json
import os
import sys
import zipfile
from pathlib import Path

import pytest

import grader
from grader import jail
from handofflab.ground.console import LabError

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from hostilegrading import CORRECT, FORGE, LIGHT, grade, hostile, results_json  # noqa: E402
from labgrading import SAMPLES  # noqa: E402


def _zip(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return path


def test_a_zip_bomb_is_refused_at_its_limit_with_a_valid_results_json(tmp_path):
    bomb = _zip(tmp_path / "bomb.zip", [("StudentBuffer.java", CORRECT), ("pad.bin", b"\0" * (64 * 1024 * 1024))])
    assert bomb.stat().st_size < 1024 * 1024
    g = grader.grade("buffer", bomb, tmp_path / "out", rubric=LIGHT)
    assert g.score == 0 and "more than 8 MiB" in g.problem, g.problem
    assert results_json(tmp_path / "out")["score"] == 0


def test_too_many_files_and_colliding_names_are_named(tmp_path):
    many = _zip(tmp_path / "many.zip", [(f"f{i}.txt", "x") for i in range(grader.budgets.UNPACK_FILES + 1)])
    g = grader.grade("buffer", many, tmp_path / "o1", rubric=LIGHT)
    assert "more than 200 files" in g.problem, g.problem
    collide = _zip(tmp_path / "collide.zip", [("x", "a file"), ("x/y", "and a folder of the same name"),
                                              ("../up.txt", "out"), ("StudentBuffer.java", CORRECT)])
    g = grader.grade("buffer", collide, tmp_path / "o2", rubric=LIGHT)
    assert g.score == 10, g.report()  # the one file that matters is graded; the rest are left out, not fatal
    assert results_json(tmp_path / "o2")["score"] == 10


def test_a_folder_named_like_the_source_is_not_the_source(tmp_path):
    sub = tmp_path / "sub"
    (sub / "StudentBuffer.java").mkdir(parents=True)
    g = grader.grade("buffer", sub, tmp_path / "out", rubric=LIGHT)
    assert g.score == 0 and "no `StudentBuffer.java`" in g.problem, g.problem
    results_json(tmp_path / "out")


def test_a_grader_failure_still_writes_a_valid_results_json(tmp_path, monkeypatch):
    def broken(*args):
        raise RuntimeError("a bug in the grader")
    monkeypatch.setattr(grader.kinds.junit, "score", broken)
    g = grader.grade("buffer", SAMPLES / "buffer" / "correct", tmp_path / "out", rubric=LIGHT)
    data = results_json(tmp_path / "out")
    assert g.grader_error and data["extra_data"]["grader_error"].startswith("RuntimeError")
    assert data["score"] == 0 and "The grader itself failed, not your code" in data["output"]


# -- isolation levels -------------------------------------------------------------------------


@pytest.mark.skipif(os.environ.get("HANDOFFLAB_ISOLATION") == "weak", reason="every grading is allowed the weak "
                    "level in this run (conftest.py); the refusal is tested in a normal run")
def test_weak_isolation_is_refused_unless_allowed_and_then_said_everywhere(tmp_path, monkeypatch):
    monkeypatch.setattr(jail, "ISOLATION", "not root: no network or file-system isolation")
    with pytest.raises(LabError, match="cannot isolate"):
        grader.grade("buffer", SAMPLES / "buffer" / "correct", tmp_path / "out", rubric=LIGHT)
    # The bytecode check does not depend on the host: the forging attack is refused here too.
    g = grader.grade("buffer", hostile(tmp_path, static=FORGE), tmp_path / "out", rubric=LIGHT,
                     allow_weak_isolation=True)
    data = results_json(tmp_path / "out")
    assert g.score == 0 and data["extra_data"]["isolation"].startswith("not root")
    assert "Graded with weak isolation" in data["output"] and "Isolation: not root" in g.report()


def test_hidden_tests_are_hidden_until_published(tmp_path):
    g = grader.grade("buffer", SAMPLES / "buffer" / "does_not_compile", tmp_path / "out")
    shown = {t["name"]: t["visibility"] for t in results_json(tmp_path / "out")["tests"]}
    assert {v for n, v in shown.items() if n.startswith("hidden")} == {"after_published"}
    assert {v for n, v in shown.items() if n.startswith("public")} == {"visible"}


# -- the mutants lab cannot be gamed -----------------------------------------------------------
