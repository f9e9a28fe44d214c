"""`./lab bench calendar`: McBride & Ferrell's experiment (create n events, edit them, delete them,
each request a task) over the kit's store with each correct collection list of the catalog, and over
SQLite in the same run; thread pool, a thread spawned per task, and virtual threads (at most X
running at once, the paper's 64). Ratios to SQLite from the same run, Kruskal-Wallis across the list
kinds (the paper: "no significant difference"), Mann-Whitney for pool against spawn (the paper:
pooling "significantly better" above 1024 tasks). --full also runs each point on 1, 2, 4, ... of the
machine's cores (the paper compared 4- and 8-core machines), by CPU affinity, and plots the speed-up, and
sweeps X, the limit on threads running at once (the paper's Fig. 3; --threads chooses it in any mode).
Then the same three phases over the whole database (users, groups, calendars, events: create users and
groups, join users to groups and add events, delete users and groups at once), the kit's CalendarDatabase
with each list against the same schema on SQLite, on every core at the paper's X.
CSV, summary and plots in results/bench/calendar/.
Benchmarks are measurements, not tests: nothing here passes or fails on a time.

Here: the plan and the run, and summary.md written; what the runs say (statistics, tables, figures) is
bench_calendar_results'."""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from handofflab.ground import catalog, paths, toolchain
from handofflab.java import javabuild
from handofflab.benches.bench_calendar_results import (DATABASE, DATABASE_REQUESTS, MODES, THREADS, analyze, cores_figure,
                                              database_requests, limits_figure, ratio_figure, tables, times_figure)
from handofflab.benches.bench_shared import alone, save, stream
from handofflab.ground.console import LabError, heading, info, ok, warn

OUT = paths.RESULTS / "bench" / "calendar"


@dataclass(frozen=True)
class Plan:
    ns: tuple[int, ...]      # events created, edited and deleted per run (3 n requests)
    reps: int
    sweep_cores: bool = False  # each point on 1, 2, 4, ... cores as well as on all of them
    limits: tuple[int, ...] = (THREADS,)   # X, the threads running at once: swept as the paper's Fig. 3
    database_ns: tuple[int, ...] = (128,)  # users per run of the whole database (each join rewrites a group: ~5 times
                                           # an event's cost, so fewer than the events' n)


QUICK = Plan(ns=(512,), reps=5)                                     # 4 minutes on 2 quiet cores (measured, with the database)
FULL = Plan(ns=(256, 1024, 4096), reps=5, sweep_cores=True,         # the paper's range around 1024 tasks; tens of minutes
            limits=(4, 16, THREADS, 256), database_ns=(128, 512))


def core_counts(available: int, sweep: bool) -> list[int]:
    """The numbers of cores to run on: all of them; with `sweep`, 1, 2, 4, ... below that too."""
    counts, k = [], 1
    while sweep and k < available:
        counts.append(k)
        k *= 2
    return counts + [available]


def list_kinds(cat: catalog.Catalog) -> list[str]:
    """The store's collection lists the catalog calls correct (a buggy one would lose events)."""
    return [v.collection for v in cat.variants.values() if v.collection and v.correct]


def run(mode: str = "quick", reps: int | None = None, ns: list[int] | None = None,
        limits: list[int] | None = None) -> Path:
    plan = _plan(mode, reps, ns, limits)
    stores = [*list_kinds(catalog.load()), DATABASE]
    java = toolchain.server_java()
    major = toolchain.java_major(java) or 0  # one `java -version`, not one per question asked of it
    modes = list(MODES) if major >= 21 else [m for m in MODES if m != "virtual"]
    if "virtual" not in modes:
        warn("no JDK 21+ here: virtual threads are left out (install one, or set HANDOFFLAB_JAVA)")
    with alone("bench calendar"):
        OUT.mkdir(parents=True, exist_ok=True)
        raw, database = OUT / "raw.csv", OUT / "database_raw.csv"
        for old in [raw, database, *OUT.glob("raw-*cores*.csv"), OUT / "calendar_cores.png", OUT / "calendar_threads.png",
                    OUT / "calendar_database.png"]:
            old.unlink(missing_ok=True)
        cores = core_counts(len(os.sched_getaffinity(0)), plan.sweep_cores)
        points = len(stores) * len(modes) * len(plan.ns) * len(plan.limits)
        heading(f"bench calendar --{mode}: {len(stores)} stores x {len(modes)} thread managements x n = "
                f"{', '.join(map(str, plan.ns))} x at most {', '.join(map(str, plan.limits))} threads at once: {points} points "
                f"x {plan.reps} runs, on {' and '.join(map(str, cores))} core(s); then the whole database, "
                f"{len(stores) * len(modes) * len(set(plan.database_ns))} points at n = {', '.join(map(str, sorted(set(plan.database_ns))))} users")
        native = ["--enable-native-access=ALL-UNNAMED"] if major >= 22 else []  # SQLite's native library, on 22+

        def command(out: Path, x: int, workload: str = "events") -> list[str]:
            ns = plan.database_ns if workload == "database" else plan.ns
            return [java, *native, "-cp", javabuild.classpath("calendar"), "handofflab.calendar.CalendarBench", str(out),
                    str(plan.reps), ",".join(map(str, sorted(set(ns)))), ",".join(stores), ",".join(modes), str(x), workload]

        partial = False
        parts = []
        for k, x in itertools.product(cores, plan.limits):
            part = OUT / f"raw-{k}cores-{x}threads.csv"
            parts.append((part, x))
            info(f"on {k} core(s), at most {x} threads at once")
            partial |= stream(command(part, x), part, "run `mvn -f java/pom.xml -pl calendar test` to see why the store fails", cpus=k)
            if partial:
                break
        _concat(parts, raw)
        if not partial:  # the whole database, on every core at the paper's X (or the one --threads gave nearest it)
            x = min(plan.limits, key=lambda v: abs(v - THREADS))
            info(f"the whole database: users, groups, calendars and events, at most {x} threads at once")
            partial |= stream(command(database, x, "database"), database,
                              "run `mvn -f java/pom.xml -pl calendar test` to see why the database fails")
        runs = _read(database) if database.exists() else None   # the whole database's runs, read once
        summary, tests, db_summary = summarize(raw, partial, runs)
        _figures(summary, db_summary, cores, plan)
        return OUT


def _plan(mode: str, reps: int | None, ns: list[int] | None, limits: list[int] | None) -> Plan:
    """The mode's plan with the options given, each checked before anything runs."""
    plan = QUICK if mode == "quick" else FULL
    if reps is not None and reps < 2:
        raise LabError(f"--reps must be at least 2, got {reps}", "use 5: the significance tests need several runs per point")
    plan = Plan(tuple(ns) if ns else plan.ns, reps or plan.reps, plan.sweep_cores, tuple(limits) if limits else plan.limits,
                tuple(min(n, max(ns)) for n in plan.database_ns) if ns else plan.database_ns)   # --n caps it too
    if any(n < 1 for n in plan.ns):
        raise LabError(f"--n takes positive numbers, got {','.join(map(str, plan.ns))}", "e.g. --n 256,1024")
    if any(x < 1 for x in plan.limits):
        raise LabError(f"--threads takes positive numbers, got {','.join(map(str, plan.limits))}", "e.g. --threads 4,16,64")
    return plan


def _figures(summary, db_summary, cores: list[int], plan: Plan) -> None:
    """The run's plots (the cores' and the threads' only where it swept them), and where its results are."""
    save(times_figure(summary), OUT / "calendar_times.png")
    save(ratio_figure(summary), OUT / "calendar_ratio.png")
    figures = "calendar_times.png, calendar_ratio.png"
    if len(cores) > 1:
        save(cores_figure(summary), OUT / "calendar_cores.png")
        figures += ", calendar_cores.png"
    if len(plan.limits) > 1:
        save(limits_figure(summary), OUT / "calendar_threads.png")
        figures += ", calendar_threads.png"
    tables = "raw.csv, summary.csv, tests.csv"
    if db_summary is not None:
        save(times_figure(db_summary, requests=database_requests, what="the kit's database with each list"),
             OUT / "calendar_database.png")
        figures += ", calendar_database.png"
        tables += ", database_raw.csv, database_summary.csv, database_tests.csv"
    ok(f"results in {OUT}: {tables}, summary.md, {figures}")


def _concat(parts: list[tuple[Path, int]], raw: Path) -> None:
    """The runs on each number of cores and at each limit X, one CSV (each part has the same header; X, the
    limit each part ran at, added as the column `limit`)."""
    lines = []
    for i, (part, x) in enumerate((p, x) for p, x in parts if p.exists()):
        text = part.read_text().splitlines()
        lines += ([text[0] + ",limit"] if i == 0 else []) + [line + f",{x}" for line in text[1:]]
    raw.write_text("\n".join(lines) + "\n")


def _read(raw: Path):
    import pandas as pd

    return pd.read_csv(raw)


def summarize(raw: Path, partial: bool = False, database=None):
    """summary.md (and the CSVs beside it) from the events' runs and, when given, the whole database's runs (a
    DataFrame of database_raw.csv); the events' summary and tests, and the database's summary (None without it)."""
    df = _read(raw)
    summary, tests = analyze(df)
    summary.to_csv(OUT / "summary.csv", index=False)
    tests.to_csv(OUT / "tests.csv", index=False)
    limits = sorted(df["limit"].unique()) if "limit" in df.columns else [THREADS]
    lines = [f"Each run: create n events, edit all n, delete all n (3 n requests), at most "
             f"{', '.join(map(str, limits))} threads at once (X; the paper's is {THREADS}). "
             f"Ratio: the median time over {DATABASE}'s median at the same thread management and n, from this run.",
             "", *tables(summary, tests)]
    if df["n"].max() <= 1024:  # the paper's claim is about more tasks than this run had (3 n requests each)
        lines += ["", f"The paper's claim that a pool beats a thread per task is for more than 1 024 tasks. This run's "
                  f"largest n is {df['n'].max()} ({3 * df['n'].max()} requests, but at most X at once, and the "
                  "paper counts n): it does not test that claim. `--full` runs n = 4096, or choose `--n 2048`."]
    db_summary = None
    if database is not None:
        db_summary, db_tests = analyze(database)
        db_summary.to_csv(OUT / "database_summary.csv", index=False)
        db_tests.to_csv(OUT / "database_tests.csv", index=False)
        lines += ["", "## The whole database", "",
                  f"Each run: create n users and n/16 groups (each with its calendar); join every user to a group and add "
                  f"an event to every user's calendar, interleaved; delete every user and group in a shuffled order, so "
                  f"that a group goes while its members do ({DATABASE_REQUESTS}), on all {database['cores'].max()} cores, at "
                  f"most {min(limits, key=lambda v: abs(v - THREADS))} threads at once. The kit's CalendarDatabase "
                  f"(files, a lock per entity) with each list; {DATABASE}: the same tables, foreign keys that cascade the deletes, one transaction per "
                  "request. Every run checks each group's members and each calendar's event after the joins, and after "
                  "the deletes that no reference is broken and nothing is left.", "", *tables(db_summary, db_tests)]
    if partial:
        lines.insert(0, "**PARTIAL: the benchmark stopped early; these are the runs it finished.**\n")
    for name, runs in (("raw.csv", df), ("database_raw.csv", database)):
        bad_runs = 0 if runs is None else int((runs["status"] != "ok").sum())
        if bad_runs:
            warn(f"{bad_runs} run(s) did not serve every request correctly; they are kept in {name} "
                 "(status column) and left out of the medians")
    (OUT / "summary.md").write_text("\n".join(lines) + "\n")
    info("\n".join(lines))
    return summary, tests, db_summary
