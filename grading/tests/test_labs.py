"""The course: eight labs in the book's order, each a handout that is also a book chapter, a starter, public
tests, a hint trail and a rubric of 10 points. Each lab's gradings (its reference full marks, its known-buggy
samples the marks they deserve, every time, its starter what a starter deserves) are in test_lab_LAB.py; the
helpers they share in labgrading.py."""
import re
import sys
import tomllib
from pathlib import Path

import pytest

from handofflab.ground import paths

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import LABS  # noqa: E402


COURSE = ("buffer", "pht", "pipes-spec", "server", "mutants", "calendar", "database", "dht")


def test_the_course_has_its_eight_labs_in_order():
    assert LABS == sorted(COURSE)
    summary = (paths.BOOK / "src" / "SUMMARY.md").read_text()
    order = [summary.index(f"lab-{lab}.md") for lab in COURSE]
    assert order == sorted(order), "the book lists the labs in the course's order"


@pytest.mark.parametrize("lab", LABS)
def test_each_lab_has_handout_starter_public_tests_hints_and_a_rubric(lab):
    folder = paths.LABS / lab
    rubric = tomllib.loads((folder / "rubric.toml").read_text())
    assert sum(t["points"] for t in rubric["test"]) == 10
    assert (folder / "starter" / rubric["file"]).exists()
    assert any(t["name"].startswith("public") for t in rubric["test"])
    assert any(t["name"].startswith("hidden") for t in rubric["test"])
    handout = (folder / "README.md").read_text()
    hints = re.findall(r"^\d+\. ", handout.split("## Hints", 1)[1], re.M)
    assert len(hints) >= 4, "a hint trail, one step at a time"
    chapter = (paths.BOOK / "src" / f"lab-{lab}.md").read_text()
    assert f"labs/{lab}/README.md" in chapter, "the handout is the book chapter"
    for t in rubric["test"]:
        if t["kind"] == "junit":
            assert any(t["method"] in p.read_text() for p in (folder / "public").glob("*.java")), t["method"]
