"""The student's loop: `./lab check-lab` (a lab's public tests, in seconds, again on every save with
--watch) and `./lab hint` (the lab's hints one at a time, remembered in results/hints/)."""
from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path

from rich.markdown import Markdown

import grader
from grader import budgets
from grader import rubric as rubric_mod
from handofflab.java import javabuild
from handofflab.ground import paths, toolchain
from handofflab.ground.console import LabError, console


# The quick mode's stress runs: the grader's default length (budgets.STRESS_SECONDS). A rubric that asks for a
# longer run (the PHT lab's 9 s) gets it with --full; every other check is the grader's, size for size.
QUICK_STRESS_SECONDS = budgets.STRESS_SECONDS


def student_rubric(lab: str, full: bool) -> tuple[grader.Rubric, list[str]]:
    """The rubric check-lab runs (every test but the withheld, their stress runs cut to the quick mode's length
    unless `full`) and a line for each difference from the grader's."""
    rubric = grader.load_rubric(lab)
    mine = rubric.for_student()
    notes = [f"not run here: '{t.name}' ({t.points:g} points): {t.withheld}" for t in rubric.withheld]
    joint = sorted({t.kind for t in rubric.withheld} & {t.kind for t in mine.tests})
    for kind in joint:  # scored together (grader/scoring.py): a catch counts only if no correct subject is failed
        notes.append(f"not the whole rule here: grading scores the {kind} tests together, and a catch counts only when "
                     "no correct subject is failed, the withheld ones included; a mark here may be lost there")
    withheld_specs = [f for f in (rubric.spec.get("reference"), rubric.spec.get("refinement"))
                      if f and not (paths.SPECS / f"{f}.tla").exists()]
    if any(t.kind == "tlc" for t in mine.tests) and withheld_specs:
        notes.append("not run here: grading also crosses your spec with the kit's (its properties on your algorithm, "
                     "yours on its, your steps read as the design's), which needs "
                     + " and ".join(f"specs/{f}.tla" for f in withheld_specs)
                     + ", the lab's answer; your instructor's grading runs those crossings")
    if not full:
        quick = []
        for t in mine.tests:
            if "stress" in t.checkers and (t.seconds or 0) > QUICK_STRESS_SECONDS:
                quick.append(dataclasses.replace(t, seconds=QUICK_STRESS_SECONDS))
                notes.append(f"quick: '{t.name[:60]}…' stresses for {QUICK_STRESS_SECONDS:g} s where grading gives "
                             f"{t.seconds:g} s (--full: the grader's {t.seconds:g} s)")
            else:
                quick.append(t)
        mine = dataclasses.replace(mine, tests=tuple(quick))
    return mine, notes


def check_lab(lab: str, path: Path, watch: bool, allow_weak_isolation: bool, full: bool = False) -> int:
    """Every test of the lab's rubric that the student may run, with the grader's own code, on PATH. 0 when every
    one passes (or --watch ends with Ctrl-C), 1 when one fails, 4 when one could not be judged here."""
    rubric, notes = student_rubric(lab, full)
    if not rubric.tests:
        raise LabError(f"lab {lab} has no test a student runs", "it is graded only by your instructor")
    _set_up(rubric)
    withheld = grader.load_rubric(lab).withheld  # loaded once: --watch reruns once() on every save
    out = paths.RESULTS / "check-lab" / lab
    cut = any(n.startswith("quick:") for n in notes)
    mode = ("full: the grader's durations" if full else "quick (--full: the grader's durations)" if cut
            else "the grader's sizes and durations")

    def once() -> int:
        start = time.monotonic()
        console.print(f"[bold]check-lab {lab}[/]: {len(rubric.tests)} of the rubric's "
                      f"{len(rubric.tests) + len(withheld)} tests, mode {mode}")
        for note in notes:
            console.print(f"  [dim]{note}[/]", highlight=False, soft_wrap=True)
        with console.status(f"checking {path} ...") as status:
            g = grader.grade(lab, path, out, rubric=rubric, allow_weak_isolation=allow_weak_isolation,
                             progress=lambda text: status.update(f"checking {path}: {text}"))
        if g.problem:  # first: each test's "not run (see above)" points back to it
            console.print(g.problem.strip()[:3000], markup=False, highlight=False, soft_wrap=True)
        for t in g.tests:
            mark = "[yellow]NOT JUDGED" if t.pending else "[green]pass" if t.score == t.max_score else "[red]FAIL"
            console.print(f"{mark}[/] {t.name}  [dim]({t.score:g} / {t.max_score:g})[/]", highlight=False, soft_wrap=True)
            if t.score < t.max_score and not g.problem:
                # unwrapped: a swimlane's rows stay rows however wide the terminal
                console.print(_indented(t.output.strip()[:3000]), markup=False, highlight=False, soft_wrap=True)
                if t.swimlane_md:  # the counterexample, in the kit's one view, where the student is looking
                    console.print(_indented(t.swimlane_md.strip()), markup=False, highlight=False, soft_wrap=True)
        left = sum(t.points for t in withheld)
        console.print(f"[bold]{g.score:g} / {g.max_score:g}[/] points in {time.monotonic() - start:.1f} s"
                      + (f"; {left:g} more are graded where your instructor grades (above: why)" if left else "")
                      + f". The report: {paths.shown(out / 'report.md')}", highlight=False, soft_wrap=True)
        if g.grader_error:
            return 3
        return 4 if g.pending else 0 if g.score == g.max_score else 1

    if not watch:
        return once()

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


def _indented(text: str) -> str:
    return "\n".join("      " + line for line in text.splitlines())


# Measured on 2 cores (the Java a student copy holds: mvn package of four modules): 17 s from an empty Maven cache,
# downloads from Maven Central included, 10 s with the cache filled.
FIRST_BUILD = "about 20 s"


def _set_up(rubric: grader.Rubric) -> None:
    """What a first run sets up, said before it starts, with how long it took here: the kit's Java (a Java lab's
    classes compile against it and its checkers run in it) and TLC. A spec lab builds no Java."""
    if rubric.file.endswith(".java") and not javabuild.built():
        console.print(f"[dim]First run: building the kit's Java with Maven (Lincheck, JUnit and the checkers from "
                      f"Maven Central): {FIRST_BUILD}. Later runs skip it.[/]")
        javabuild.build()
    if any(t.kind == "tlc" for t in rubric.tests) or any("trace" in t.checkers for t in rubric.tests):
        toolchain.tlc_jar()  # fetched on a first run, which it says


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
    console.print(f"[bold]Hint {number} of {total}[/] ({lab}):")
    console.print(Markdown(terminal_text(rubric_mod.hint(lab, number))))


# What the book's KaTeX draws, as a terminal can show it: a hint's `$m = 4$` reads m = 4.
_TEX = {r"\bmod": "mod", r"\cdot": "·", r"\times": "×", r"\alpha": "α", r"\le": "≤", r"\ge": "≥",
        r"\neq": "≠", r"\,": " ", r"\ldots": "…"}


def terminal_text(markdown: str) -> str:
    """A handout's Markdown with its inline math as plain text (TeX's few symbols the handouts use, in Unicode)."""
    def plain(m: re.Match) -> str:
        text = m.group(1)
        for tex, char in _TEX.items():
            text = re.sub(re.escape(tex) + (r"(?![A-Za-z])" if tex[-1].isalpha() else ""), char, text)
        return text.replace("{", "").replace("}", "")
    return re.sub(r"\$([^$\n]+)\$", plain, markdown)

