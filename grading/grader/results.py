"""What a grading produces: one result per rubric test, the grade, results.json (in Gradescope's format or
PrairieLearn's) and the readable report.md. Hidden tests are hidden in results.json (Gradescope shows them
to the student once grades are published; PrairieLearn, which shows results at once, gets their marks
without their feedback), whatever their names say."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# A line of feedback that markdown would read as a heading or a heading's underline. Feedback quotes what
# the submission controls (its exceptions, its thread names, its output); quoted, it cannot pose as the
# grader's own "## ✔ hidden … 2 / 2".
_HEADING = re.compile(r"^( {0,3})(#|=+\s*$|-+\s*$)", re.M)


def quoted(text: str) -> str:
    """Feedback as text inside the report: a line that would start a heading is escaped."""
    return _HEADING.sub(lambda m: m.group(1) + "\\" + m.group(2), text)

@dataclass
class TestResult:
    name: str
    max_score: float
    score: float = 0.0
    output: str = ""
    swimlane_md: str = ""
    hidden: bool = False    # Gradescope shows it to the student only once grades are published
    pending: bool = False   # not graded: the machine too busy to finish, or a checker failed itself; regrade, never blame

    def gradescope(self) -> dict:
        # Gradescope knows only passed and failed: a pending test says so in its name, where the list shows it
        name = self.name + (" — NOT GRADED (machine too busy): pending a regrade" if self.pending else "")
        return {"name": name, "score": self.score, "max_score": self.max_score,
                "status": "passed" if self.score == self.max_score else "failed",
                "output": quoted(self.output + (("\n\n" + self.swimlane_md) if self.swimlane_md else "")),
                "output_format": "md", "visibility": "after_published" if self.hidden else "visible"}


@dataclass
class Grade:
    lab: str
    submission: str
    tests: list[TestResult] = field(default_factory=list)
    problem: str = ""       # why nothing could be graded (no file, no compile), if so
    seconds: float = 0.0
    isolation: str = "full"     # the isolation level that graded it (jail.ISOLATION)
    grader_error: str = ""      # the grader's own failure, if any: the marks mean nothing then

    @property
    def score(self) -> float:
        return sum(t.score for t in self.tests)

    @property
    def pending(self) -> bool:
        """Some test could not be graded for the machine's sake: the instructor must regrade."""
        return any(t.pending for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t.max_score for t in self.tests)

    def results_json(self) -> dict:
        weak = "" if self.isolation == "full" else f"\n\nGraded with weak isolation: {self.isolation}."
        pending = [t.name for t in self.tests if t.pending]
        held = (f"**Not fully graded.** {len(pending)} test(s) could not be judged because the grading machine was "
                f"too busy, and count 0 until your instructor regrades: {'; '.join(pending)}.\n\n" if pending else "")
        return {"score": self.score, "max_score": self.max_score, "execution_time": round(self.seconds, 1),
                "output": held + (quoted(self.problem) or f"{self.score:g} / {self.max_score:g} points") + weak,
                "output_format": "md", "tests": [t.gradescope() for t in self.tests],
                "extra_data": {"isolation": self.isolation, "grader_error": self.grader_error,
                               "pending": [t.name for t in self.tests if t.pending]}}

    def prairielearn_json(self) -> dict:
        """PrairieLearn's external-grader results: score in [0, 1], points per test. A grading that could not
        judge (pending, the grader's own failure, a submission that would not unpack or build) is
        `gradable: false`: PrairieLearn then awards nothing, takes nothing, and counts no attempt."""
        pending = [t.name for t in self.tests if t.pending]
        tests = [{"name": t.name + (" (not graded: pending a regrade)" if t.pending else ""), "points": t.score,
                  "max_points": t.max_score,
                  "output": "A hidden test: PrairieLearn shows results at once, so its feedback is your instructor's."
                  if t.hidden else quoted(t.output + (("\n\n" + t.swimlane_md) if t.swimlane_md else ""))}
                 for t in self.tests]
        if pending:
            why = (f"{len(pending)} test(s) could not be judged because the grading machine was too busy "
                   f"({'; '.join(pending)}); submit again")
        elif self.grader_error:
            why = "the grader itself failed, not your code; please tell your instructor"
        elif self.problem:
            why = "your submission could not be built or unpacked (below)"
        else:
            why = ""
        weak = "" if self.isolation == "full" else f" Graded with weak isolation: {self.isolation}."
        results = {"gradable": not why, "tests": tests, "output": quoted(self.problem),
                   "message": (f"Not graded, and no attempt counted: {why}." if why
                               else f"{self.score:g} / {self.max_score:g} points.") + weak}
        if not why:
            results["score"] = self.score / self.max_score if self.max_score else 0.0
        elif self.problem:
            results["format_errors"] = [quoted(self.problem)]
        return results

    def report(self) -> str:
        lines = [f"# {self.lab}: {self.score:g} / {self.max_score:g} points", "",
                 f"Submission: `{self.submission}`", "", f"Isolation: {self.isolation}", ""]
        if self.problem:
            lines += ["## Could not grade", "", quoted(self.problem), ""]
        for t in self.tests:
            mark = "✔" if t.score == t.max_score else "✘"
            lines += [f"## {mark} {t.name} — {t.score:g} / {t.max_score:g}", "", quoted(t.output), ""]
            if t.swimlane_md:
                lines += [quoted(t.swimlane_md), ""]
        return "\n".join(lines)
