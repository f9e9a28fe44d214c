"""Grading many times (reruns: is the grade repeatable?) and many submissions (a batch, each
hidden from the others, at a parallelism the machine can hold)."""
from __future__ import annotations

import concurrent.futures
import csv
import os
import re
import time
from pathlib import Path

from grader import single
from grader import rubric as rubric_mod
from grader import budgets, jail
from handofflab.ground import paths
from handofflab.ground.console import LabError


# -- repeatability ---------------------------------------------------------------------

def reruns(lab: str, submission: Path, runs: int, out_dir: Path | None = None,
           allow_weak_isolation: bool = False) -> dict:
    """Grades one submission `runs` times: every run must give the same marks, test by test
    (a correct solution full marks every time, a buggy one its failures every time). Writes
    reruns.csv (one row per run: seconds and each test's score) and exits 1 on any difference."""
    from handofflab.ground.console import ok, progress

    out_dir = out_dir or paths.RESULTS / "grading" / lab / f"{submission.resolve().stem}-reruns"
    out_dir.mkdir(parents=True, exist_ok=True)
    rows, first = [], None
    with progress() as bar:
        task = bar.add_task(f"grading {submission.name} {runs} times", total=runs)
        for i in range(runs):
            g = single.grade(lab, submission, out_dir / "last", allow_weak_isolation=allow_weak_isolation)
            marks = [t.score for t in g.tests]
            first = first or marks
            rows.append({"run": i + 1, "seconds": round(g.seconds, 1), "score": g.score,
                         **{t.name: t.score for t in g.tests}})
            bar.update(task, advance=1, description=f"run {i + 1}: {g.score:g}/{g.max_score:g}"
                       + ("" if marks == first else "  ← DIFFERENT"))
    with (out_dir / "reruns.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    seconds = sorted(r["seconds"] for r in rows)
    differing = [r["run"] for r in rows if [r[t.name] for t in g.tests] != first]
    summary = {"runs": runs, "marks": first, "differing_runs": differing,
               "median_s": seconds[len(seconds) // 2], "worst_s": seconds[-1]}
    if differing:
        raise LabError(f"{submission.name}: {len(differing)} of {runs} runs gave other marks than run 1 "
                       f"(runs {differing[:10]}): the grade is not repeatable", f"see {out_dir / 'reruns.csv'}")
    ok(f"{submission.name}: the same marks {first} in all {runs} runs; grading took {summary['median_s']} s "
       f"(median), {summary['worst_s']} s (worst) → {out_dir / 'reruns.csv'}")
    return summary


# -- many submissions -------------------------------------------------------------

def submissions_in(folder: Path) -> list[Path]:
    """Each subfolder or .zip of `folder` is one submission (hidden files and others ignored)."""
    if not folder.is_dir():
        raise LabError(f"{folder} is not a folder of submissions", "pass a folder holding one subfolder or .zip per student")
    found = sorted(p for p in folder.iterdir() if not p.name.startswith(".") and not p.is_symlink()
                   and (p.is_dir() or p.suffix == ".zip"))
    if not found:
        raise LabError(f"{folder} holds no submissions", "put one subfolder or .zip per student in it")
    return found


def submitter(sub: Path) -> str:
    """Who submitted: the folder's or zip's name, which the instructor's export chose. Never a
    file inside the submission: those are the student's, and could name anybody."""
    return sub.name.removesuffix(".zip")


def batch_jobs() -> int:
    """Gradings at once by default: one per two cores (a checker keeps two threads busy, and a
    grading that shares its cores finishes later, not differently: budgets are retried, then
    pending), at most 4, and no more than the memory available holds at one jail's cap each."""
    cores = os.cpu_count() or 2
    return max(1, min(4, cores // 2, jails_in_memory()))


def jails_in_memory() -> int:
    """How many grading jails, each at its memory cap, the memory available now holds."""
    try:
        meminfo = Path("/proc/meminfo").read_text()
        available = int(re.search(r"^MemAvailable:\s+(\d+) kB", meminfo, re.M)[1]) * 1024
    except (OSError, TypeError):
        available = budgets.MEMORY_TOTAL  # unknown: as if one jail's worth
    return max(1, available // budgets.MEMORY_TOTAL)


def grade_batch(lab: str, folder: Path, out_dir: Path | None = None, jobs: int | None = None,
                allow_weak_isolation: bool = False) -> Path:
    """Grades every submission in `folder`, `jobs` at a time, each hidden from the others;
    writes out_dir/NAME/{results.json,report.md} and out_dir/gradebook.csv. A submission that
    breaks the grader itself is a row with its error, never the end of the batch."""

    from handofflab.ground.console import progress, warn

    rubric = rubric_mod.load(lab)
    if jail.ISOLATION != "full" and not allow_weak_isolation:  # once, not as a row per student
        raise single.WeakIsolation(f"this host cannot isolate submitted code: {jail.ISOLATION}",
                            "grade as root on a host that allows namespaces, or pass --allow-weak-isolation")
    folder = folder.resolve()
    subs = submissions_in(folder)
    out_dir = (out_dir or paths.RESULTS / "grading" / lab / f"batch-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = jobs or batch_jobs()
    if jobs > 1 and rubric.kinds & {"server", "dht"}:
        # A server's or a DHT's efficiency is measured against the clock: two gradings at once
        # would take each other's cores and fail correct submissions.
        warn(f"lab {lab} measures efficiency: grading one submission at a time (not {jobs})")
        jobs = 1
    names = [t.name for t in rubric.tests]
    rows, start = [], time.monotonic()

    def one(sub: Path) -> dict:
        row = {"submission": sub.name, "id": submitter(sub)}
        try:
            # its own folder by its whole name: dup/ and dup.zip are two submissions, two reports
            g = single.grade(lab, sub, out_dir / sub.name, hide=(folder,), allow_weak_isolation=allow_weak_isolation)
            problem = ("PENDING, regrade: the machine was too busy. " if g.pending else "") + g.problem
            row.update(score=g.score, max_score=g.max_score, seconds=round(g.seconds, 1),
                       problem=" ".join(problem.split()))  # one line per cell, all of it (the CSV quotes it)
            row.update({n: t.score for n, t in zip(names, g.tests)})
        except Exception as e:  # the grader's own failure: recorded, and the batch goes on
            row.update(score="", max_score=sum(t.points for t in rubric.tests), seconds="",
                       problem=" ".join(f"GRADER ERROR: {type(e).__name__}: {e}".split()))
        return row

    with progress() as bar, concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        task = bar.add_task(f"grading {len(subs)} submissions of {lab}, {jobs} at a time", total=len(subs))
        for row in pool.map(one, subs):
            rows.append(row)
            bar.update(task, description=f"{row['submission']}: {row['score']} / {row['max_score']}", advance=1)
    return _write_gradebook(out_dir / "gradebook.csv", rows, names, jobs, time.monotonic() - start)


def _write_gradebook(gradebook: Path, rows: list[dict], names: list[str], jobs: int, seconds: float) -> Path:
    from handofflab.ground.console import ok, warn

    with gradebook.open("w", newline="") as f:
        w = csv.DictWriter(f, ["submission", "id", "score", "max_score", *names, "seconds", "problem"])
        w.writeheader()
        w.writerows(rows)
    errors = [r for r in rows if str(r["problem"]).startswith("GRADER ERROR")]
    if errors:
        warn(f"{len(errors)} submission(s) could not be graded: see the problem column")
    secs = sorted(r["seconds"] for r in rows if r["seconds"] != "")
    if secs:
        ok(f"{len(rows)} graded in {seconds:.0f} s ({jobs} at a time; per submission: median "
           f"{secs[len(secs) // 2]:.0f} s, worst {secs[-1]:.0f} s) — gradebook: {gradebook}")
    return gradebook
