"""The student's loop: `./lab check-lab` (a lab's public tests, in seconds, again on every save with
--watch) and `./lab hint` (the lab's hints one at a time, remembered in results/hints/)."""
from __future__ import annotations

import time
from pathlib import Path

import grader
from grader import rubric as rubric_mod
from handofflab import paths
from handofflab.commands import studentcopy
from handofflab.console import LabError, console


def check_lab(lab: str, path: Path, watch: bool, allow_weak_isolation: bool) -> int:
    """0 when every public test passes (or --watch ends with Ctrl-C), 1 when one fails."""
    public = grader.load_rubric(lab).public()
    if not public.tests:
        raise LabError(f"lab {lab} has no public tests", f"grade it instead: ./lab grade {lab} {path}")

    def once() -> bool:
        start = time.monotonic()
        with console.status(f"checking {path} against {lab}'s {len(public.tests)} public tests ...") as status:
            g = grader.grade(lab, path, paths.RESULTS / "check-lab" / lab, rubric=public,
                             allow_weak_isolation=allow_weak_isolation,
                             progress=lambda text: status.update(f"checking {path}: {text}"))
        if g.problem:  # first: each test's "not run (see above)" points back to it
            console.print(g.problem.strip()[:1500], markup=False, highlight=False)
        for t in g.tests:
            mark = "[green]pass" if t.score == t.max_score else "[red]FAIL"
            console.print(f"{mark}[/] {t.name}" + ("" if t.score == t.max_score else f"\n      {t.output.strip()[:600]}"))
        console.print(f"[bold]{g.score:g} / {g.max_score:g}[/] public points in {time.monotonic() - start:.1f} s "
                      + ("(the hidden tests run where your instructor grades)" if studentcopy.student_copy()
                         else f"(hidden tests: ./lab grade {lab} {path})"))
        return g.score == g.max_score

    if not watch:
        return 0 if once() else 1

    def stamp():
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        return [(str(p), p.stat().st_mtime_ns) for p in files]
    seen = None
    try:
        while True:
            now = stamp()
            if now != seen:
                seen = now
                once()
                console.print("[dim]watching for changes (Ctrl-C stops)[/]")
            time.sleep(1)
    except KeyboardInterrupt:
        return 0


def hint(lab: str, number: int | None, reset: bool) -> None:
    """Hint `number`, or the next one not yet shown."""
    rubric_mod.load(lab)  # an unknown lab is named, with the labs there are
    total = rubric_mod.hint_count(lab)
    seen_file = paths.RESULTS / "hints" / f"{lab}.seen"
    seen = 0 if reset or not seen_file.exists() else int(seen_file.read_text() or 0)
    if number is None:
        if seen >= total:
            console.print(f"All {total} hints of {lab} are shown. `./lab hint {lab} N` shows one again; --reset starts over.")
            return
        number = seen + 1
    if not 1 <= number <= total:
        raise LabError(f"{lab} has hints 1 to {total}, not {number}", f"./lab hint {lab}  (the next one)")
    seen_file.parent.mkdir(parents=True, exist_ok=True)
    seen_file.write_text(str(max(seen, number)))
    console.print(f"[bold]Hint {number} of {total}[/] ({lab}): {rubric_mod.hint(lab, number)}")
