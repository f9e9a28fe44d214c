"""What every kind of test gets to score its tests: the rubric, the grade being filled in, the
grading's folder and jail, and the submitted source (built, by then)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.jail import Jail
from grader.results import Grade, TestResult
from grader.rubric import Rubric, TestSpec


@dataclass
class Context:
    rubric: Rubric
    grade: Grade
    tmp: Path        # the grading's own folder (the jail's work folder)
    jail: Jail
    source: Path     # the submitted file, compiled into tmp/classes or translated in place

    @property
    def classes(self) -> Path:
        return self.tmp / "classes"

    def tests(self, kind: str) -> list[tuple[TestSpec, TestResult]]:
        """The rubric's tests of one kind, each with the result it fills in."""
        return [(self.rubric.tests[i], self.grade.tests[i]) for i in self.rubric.of_kind(kind)]
