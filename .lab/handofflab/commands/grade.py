"""`./lab grade`: one submission graded as an instructor grades it, the report printed, and the exit code
saying what the grade is (0 full marks, 1 below them, 3 the grader failed, 4 pending: grade again)."""
from __future__ import annotations

import time
from pathlib import Path

import grader
from handofflab.ground import paths
from handofflab.ground.console import bad, console


def grade(lab: str, submission: Path, out_dir: Path | None, reruns: int | None, allow_weak_isolation: bool,
          results_format: str = "gradescope") -> int:
    if reruns:
        grader.reruns(lab, submission, reruns, out_dir, allow_weak_isolation)
        return 0
    start = time.monotonic()
    g = grader.grade(lab, submission, out_dir, allow_weak_isolation=allow_weak_isolation, results_format=results_format,
                     progress=lambda text: console.print(f"[dim]… {time.monotonic() - start:5.1f} s  {text}[/]"))
    console.print(g.report())
    where = out_dir or paths.RESULTS / "grading" / lab / submission.resolve().stem
    console.print(f"\n[bold]{g.score:g} / {g.max_score:g}[/] — results.json and report.md in {where}")
    if g.grader_error:
        bad(f"the grader failed: {g.grader_error}")
        return 3
    if g.pending:
        bad("not every test could be graded: the machine was too busy (see the report); grade again")
        return 4
    if g.score < g.max_score:
        bad(f"below full marks: {g.max_score - g.score:g} point(s) lost (the report says where)")
        return 1
    return 0
