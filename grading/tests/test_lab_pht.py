"""Grading the PHT lab: its reference, its starter and its samples get the marks expected.toml records, every run,
and each report says what the sample got wrong."""
import sys
from pathlib import Path

import pytest

from handofflab.ground import paths

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import SAMPLES, _expected, grade  # noqa: E402


def test_pht_reference_gets_full_marks(tmp_path):
    scores, report = grade(tmp_path, "pht", SAMPLES / "pht" / "correct")
    assert scores == _expected("pht", "correct") and sum(scores) == 10, report


@pytest.mark.full("a whole grading of the starter (the default tier grades the reference and a slip)", seconds=15)
def test_the_pht_starter_earns_nothing_and_says_why(tmp_path):
    scores, report = grade(tmp_path, "pht", paths.LABS / "pht" / "starter")
    assert scores == _expected("pht", "starter"), report
    assert "TODO" in report and "visit only" in report  # its own TODOs, and the probe sequence it lacks


def test_a_pht_that_steers_its_own_starts_is_refused_by_name(tmp_path):
    """The checks steer ProbeStarts to choose the starts; a submission may draw from it, never steer it (it could
    steer its starts away from the window the checks open)."""
    sub = tmp_path / "steers"
    sub.mkdir()
    src = (SAMPLES / "pht" / "correct" / "StudentPht.java").read_text()
    (sub / "StudentPht.java").write_text(src.replace("        slots = new SynchronizedRef[m];",
                                                     "        ProbeStarts.steer(0);\n        slots = new SynchronizedRef[m];", 1))
    scores, report = grade(tmp_path, "pht", sub)
    assert sum(scores) == 0 and "ProbeStarts.steer" in report, report


@pytest.mark.full("a slip Lincheck catches: the default tier grades the PHT reference, whose grading runs every "
                  "checker of the hidden test, and the refused steering", seconds=30)
def test_pht_read_then_clear_is_caught_by_both_checkers(tmp_path):
    scores, report = grade(tmp_path, "pht", SAMPLES / "pht" / "split_swap")
    assert scores == _expected("pht", "split_swap"), report  # Lincheck finds it every run; the stress run after it only by luck
    assert "taken twice" in report and "| # |" in report
