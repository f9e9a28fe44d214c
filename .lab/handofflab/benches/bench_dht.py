"""`./lab bench dht`: Malard & Stewart's micro-benchmarks on the kit's distributed table (java/dht),
p separate JVM processes on loopback.

- **Patterns** (their Fig. 3): 1-N, N-N and N-1, each with the table at queue depth q and q = 0,
  with the paper's baseline, a raw one-sided put of the same values into an array at the target
  (no buffer pool, no service thread, no table), and with the store a user would pick instead,
  Hazelcast's IMap as a cluster of the same processes; all in the same run, interleaved rep by
  rep. Ratios are to the raw put's median from the same run.
- **The randomised study** (their Sec. 4): N-N runs with random request size n in 1..8 and blocking
  factor L, at q on and off; every L drawn equally often, in random order (the paper drew L at random
  and was left with 4 runs for L = 130, too few to test, so the kit balances the draw); per run, the paper's variability (largest process time minus the mean,
  over the mean); Kruskal-Wallis across the values of L, per phase and kind of time (their Table 2).
- **The matrix scatter** (their Sec. 2.1 and Table 1): process 0 sends the rows of a sparse matrix
  to their processes through the kit's table and through a blocking send/receive baseline, on
  matrices the kit makes with the sizes and non-zeros of Table 1's; the ratio of their barrier times
  per non-zero, against the matrix's size, beside the paper's.

CSV, summary and plots in results/bench/dht/. Benchmarks are measurements, not tests: nothing here
passes or fails on a time. Every run still checks that each value was stored, found and deleted
exactly once (the raw put too: each origin puts into its own part of every target's array, and an
untimed raw get reads every address back), and a run that fails stops the benchmark with its reason.

Here: the plan and the run; what a run's CSVs say (the statistics, summary.md, the figures) is
bench_dht_results'."""
from __future__ import annotations

import contextlib
import os
import random
import signal
from dataclasses import dataclass, replace
from pathlib import Path

from handofflab.benches import dht, toxiproxy
from handofflab.ground import paths, toolchain
from handofflab.benches.bench_dht_results import (PHASES, SHARES, analyze, analyze_latency, analyze_processors, analyze_scatter, cells,
                                         latency_figure, latency_report, proxy_cost,
                                         factors_report, label, patterns_figure, processors_figure, processors_report,
                                         report, scatter_figure, scatter_report, variability_figure)
from handofflab.benches.bench_shared import alone, save
from handofflab.ground.console import LabError, heading, info, ok, progress

OUT = paths.RESULTS / "bench" / "dht"
LATENCY_OUT = paths.RESULTS / "bench" / "dht-latency"   # its own folder: a latency study keeps the loopback run's results
LOOPBACK = "loopback"    # the latency study's network with no proxy: the processes reach each other directly


@dataclass(frozen=True)
class Plan:
    values: int                  # values each inserting process stores per run
    reps: int                    # runs per (pattern, implementation)
    q: int                       # the queue depth "on" (the paper: 128, for its 200 buffers)
    study_runs: int              # randomised runs per queue depth (a multiple of len(study_ls) balances them)
    study_ls: tuple[int, ...]    # blocking factors the study draws from (the paper: 1 and 10, 20, ..., 200)
    matrices: tuple[str, ...]    # Table 1's matrices to scatter (made by the kit with their shapes)
    processors: tuple[int, ...] = (2, 3, 4)   # the processor axis (their Fig. 3): p processes, above the cores allowed


QUICK = Plan(values=3_000, reps=3, q=16, study_runs=20, study_ls=(1, 50, 100, 200),        # 4.3 minutes on 2 quiet cores (measured)
             matrices=tuple(m[0] for m in dht.TABLE1))                                   # all 20 scatter in a minute
FULL = Plan(values=20_000, reps=5, q=128, study_runs=105, study_ls=(1, *range(10, 201, 10)),  # the paper's 21 values of L
            matrices=tuple(m[0] for m in dht.TABLE1), processors=(2, 3, 4, 6, 8))
IMPLS = ("dht", "raw-put", "hazelcast")      # the patterns' implementations; the kit's table runs in the cells below
# The latency study's pattern runs: the kit's table (q on) and the raw put in every pattern, and Hazelcast's cluster in
# N-N only (a member joins in seconds, and every link of its cluster crosses the proxies as the others' do).
LATENCY_PATTERNS = tuple((pattern, impl) for pattern in dht.PATTERNS for impl in ("dht", "raw-put")) + (("n-n", "hazelcast"),)



def processes() -> int:
    """As many processes as cores, and at least 3: with 2 an N-N run has one remote target only."""
    return max(3, os.cpu_count() or 1)


def run(mode: str = "quick", reps: int | None = None, matrices: Path | None = None,
        latencies: list[int] | None = None, jitter: int = 0) -> Path:
    """The benchmark on loopback; or, with `latencies` (ms), the latency study (run_latency)."""
    plan = QUICK if mode == "quick" else FULL
    if reps is not None:
        if reps < 2:
            raise LabError(f"--reps must be at least 2, got {reps}", "use 3 or more: a median needs several runs")
        plan = replace(plan, reps=reps)
    if latencies is not None:
        return run_latency(mode, plan, latencies, jitter, matrices)
    p = processes()
    impls = [(impl, q, buffers, 100) for impl in IMPLS for q, buffers in (cells(plan) if impl == "dht" else [(0, None)])]
    impls += [("raw-put", 0, None, 1)] if "raw-put" in IMPLS else []   # and the raw put as the paper's own loop
    _check_matrices(plan, matrices)
    with alone("bench dht"):
        _emptied(OUT)
        study = study_design(plan)
        scatters = len(plan.matrices) * len(dht.SCATTER_IMPLS) * plan.reps
        missing = [m for m in plan.matrices if matrices and not (matrices / f"{m}.mtx").is_file()]
        if missing:
            info(f"no {', '.join(m + '.mtx' for m in missing)} in {matrices}: the kit makes those matrices, with their sizes")
        axis = len(plan.processors) * len(dht.PATTERNS) * plan.reps
        total = len(dht.PATTERNS) * len(impls) * plan.reps + len(study) + axis + scatters
        heading(f"bench dht --{mode}: {p} processes; {len(dht.PATTERNS)} patterns x {len(impls)} implementations x "
                f"{plan.reps} runs, then {len(study)} randomised N-N runs; {plan.values} values per process; then "
                f"{axis} runs over p = {', '.join(map(str, plan.processors))} processes; then {scatters} matrix scatters")
        _measure(OUT, total, _points(plan, p, impls, study, matrices, _Appender(OUT / "raw.csv"),
                                     _Appender(OUT / "scatter_raw.csv")))
        _summarize(p, plan)
        return OUT


def _measure(out: Path, total: int, points) -> None:
    """Measures the points in order, under a progress bar. Each finished point is on disk at once (raw.csv,
    scatter_raw.csv): a run stopped by Ctrl-C, SIGTERM or a failure keeps what it measured, says so in summary.md,
    and ends as an error; every program it started is ended (dht._processes, toxiproxy.started)."""
    done = 0
    try:
        with stopped_by_sigterm(), progress() as bar:
            task = bar.add_task("points", total=total)
            for description, measure in points:
                bar.update(task, description=description)
                measure()
                done += 1
                bar.advance(task)
    except (KeyboardInterrupt, LabError) as e:
        why = "it was stopped (Ctrl-C or SIGTERM)" if isinstance(e, KeyboardInterrupt) else f"a run failed: {e.problem}"
        (out / "summary.md").write_text(
            f"**PARTIAL: the benchmark ended after {done} of {total} points, because {why}.** raw.csv and "
            "scatter_raw.csv hold every point it finished; no summary was computed from them.\n")
        raise LabError(f"bench dht ended after {done} of {total} points: {why}",
                       f"what it finished is in {out}/raw.csv and scatter_raw.csv; run it again for the summary") from None


def run_latency(mode: str, plan: Plan, latencies: list[int], jitter: int, matrices: Path | None) -> Path:
    """The paper's two claims across a network with latency, in results/bench/dht-latency/: Table 1's scatter
    (the kit's table against blocking send/receive per matrix) and Fig. 3's N-1 growth with p, with the patterns
    of the kit's table, the raw put and a Hazelcast cluster beside them, on each network of the run: straight
    over loopback, and through Toxiproxy at each latency given (each direction of every link between two
    processes held that long, ± `jitter`). The networks take turns within each run of the plan, so the machine's
    drift reaches all of them alike; Toxiproxy at 0 ms beside loopback is the proxy's own cost."""
    if not latencies or any(ms < 0 or ms > 1000 for ms in latencies) or len(set(latencies)) != len(latencies):
        raise LabError(f"--latency takes distinct milliseconds from 0 to 1000, got {latencies}", "e.g. --latency 0,1,5")
    if jitter < 0 or (jitter and jitter > min([ms for ms in latencies if ms > 0], default=0)):
        raise LabError(f"--jitter {jitter} ms is more than the smallest latency above 0 (a delay cannot be negative)",
                       "give a jitter from 0 to the smallest latency, or leave it out (0)")
    _check_matrices(plan, matrices)
    toolchain.toxiproxy_server()   # before anything is measured: without Go, refused here with the install line
    p = processes()
    with alone("bench dht"), stopped_by_sigterm():
        _emptied(LATENCY_OUT)
        try:
            with toxiproxy.started(LATENCY_OUT / "toxiproxy.log") as tp:
                networks = [(LOOPBACK, None)] + [(f"{ms} ms", toxiproxy.Latency(tp, ms, jitter)) for ms in latencies]
                per_network = len(plan.matrices) * len(dht.SCATTER_IMPLS) + len(plan.processors) + len(LATENCY_PATTERNS)
                total = len(networks) * per_network * plan.reps
                heading(f"bench dht --{mode} --latency {','.join(map(str, latencies))}: {len(networks)} networks "
                        f"(loopback, then Toxiproxy {toolchain.TOXIPROXY} at {', '.join(f'{ms} ms' for ms in latencies)} "
                        f"each way, jitter ± {jitter} ms); in each, {len(plan.matrices)} matrix scatters x "
                        f"{len(dht.SCATTER_IMPLS)}, N-1 on p = {', '.join(map(str, plan.processors))}, and "
                        f"{len(LATENCY_PATTERNS)} pattern runs on {p} processes; {plan.reps} runs of it all: {total} points")
                _measure(LATENCY_OUT, total, _latency_points(plan, p, networks, matrices, _Appender(LATENCY_OUT / "raw.csv"),
                                                             _Appender(LATENCY_OUT / "scatter_raw.csv")))
        except KeyboardInterrupt:   # while Toxiproxy started or ended: _measure names a stop while it measures
            raise LabError("bench dht --latency was stopped (Ctrl-C or SIGTERM) before it measured", "run it again") from None
        _summarize_latency(p, plan, latencies, jitter)
        return LATENCY_OUT


def _latency_points(plan: Plan, p: int, networks, matrices: Path | None, raw_csv, scatter_csv):
    """The latency study's points in order: in each run of the plan, the matrix scatters, the N-1 processor axis
    and the patterns, each point measured on every network in turn, so that what is compared across networks
    was measured minutes apart at most."""
    def tagged(rows: list[dict], network: str, latency) -> list[dict]:
        return [{"network": network, "latency_ms": latency.ms if latency else "", **row} for row in rows]
    for rep in range(plan.reps):
        for matrix in plan.matrices:
            for network, latency in networks:
                for impl in dht.SCATTER_IMPLS:
                    yield (f"{network}: scatter {matrix} {impl} (run {rep + 1}/{plan.reps})",
                           lambda rep=rep, matrix=matrix, impl=impl, network=network, latency=latency: scatter_csv.add(
                               tagged([{"run": rep, **dht.scatter(matrix, p, impl, blocking=100, q=plan.q, folder=matrices,
                                                                  latency=latency)}], network, latency)))
        for pp in plan.processors:
            for network, latency in networks:
                yield (f"{network}: n-1 on {pp} processes (run {rep + 1}/{plan.reps})",
                       lambda rep=rep, pp=pp, network=network, latency=latency: raw_csv.add(tagged(
                           [row for r in dht.run(pp, "n-1", plan.values, n=1, blocking=100, q=plan.q, latency=latency)
                            for row in _rows(r, "processors", rep)], network, latency)))
        for pattern, impl in LATENCY_PATTERNS:
            for network, latency in networks:
                yield (f"{network}: {pattern} {impl} (run {rep + 1}/{plan.reps})",
                       lambda rep=rep, pattern=pattern, impl=impl, network=network, latency=latency: raw_csv.add(tagged(
                           [row for r in dht.run(p, pattern, plan.values, n=1, blocking=100, q=plan.q if impl == "dht" else 0,
                                                 impl=impl, latency=latency)
                            for row in _rows(r, "patterns", rep)], network, latency)))


def _points(plan, p: int, impls, study, matrices: Path | None, raw_csv, scatter_csv):
    """Every point of the run in its order, as (what it is, the measuring of it): the patterns (interleaved: each
    rep runs every point once), the randomised study, the processor axis (the kit's table at q on, p processes),
    then the matrix scatters. Each measured point is appended to its CSV at once."""
    def pattern_point(pattern, rep, impl, q, buffers, blocking):
        return lambda: raw_csv.add([row for r in dht.run(p, pattern, plan.values, n=1, blocking=blocking, q=q, impl=impl,
                                                         buffers=buffers) for row in _rows(r, "patterns", rep)])
    for rep in range(plan.reps):
        for pattern in dht.PATTERNS:
            for impl, q, buffers, blocking in impls:
                yield (f"{pattern} {label(impl, q, buffers, blocking)} (run {rep + 1}/{plan.reps})",
                       pattern_point(pattern, rep, impl, q, buffers, blocking))
    for i, (q, blocking, n) in enumerate(study):
        yield (f"randomised run {i + 1}/{len(study)}: q={q} L={blocking} n={n}",
               lambda i=i, q=q, blocking=blocking, n=n: raw_csv.add(
                   [row for r in dht.run(p, "n-n", plan.values, n=n, blocking=blocking, q=q) for row in _rows(r, "study", i)]))
    for rep in range(plan.reps):
        for pp in plan.processors:
            for pattern in dht.PATTERNS:
                yield (f"{pattern} on {pp} processes (run {rep + 1}/{plan.reps})",
                       lambda rep=rep, pp=pp, pattern=pattern: raw_csv.add(
                           [row for r in dht.run(pp, pattern, plan.values, n=1, blocking=100, q=plan.q)
                            for row in _rows(r, "processors", rep)]))
    for rep in range(plan.reps):
        for matrix in plan.matrices:
            for impl in dht.SCATTER_IMPLS:
                yield (f"scatter {matrix} {impl} (run {rep + 1}/{plan.reps})",
                       lambda rep=rep, matrix=matrix, impl=impl: scatter_csv.add(
                           [{"run": rep, **dht.scatter(matrix, p, impl, blocking=100, q=plan.q, folder=matrices)}]))


def _summarize(p: int, plan) -> None:
    """The finished run's tables, summary.md and figures, from raw.csv and scatter_raw.csv."""
    import pandas as pd

    df = pd.read_csv(OUT / "raw.csv")
    summary, variability, tests, threads = analyze(df)
    axis_table, growth = analyze_processors(df)
    axis_table.to_csv(OUT / "processors.csv", index=False)
    summary.to_csv(OUT / "summary.csv", index=False)
    threads.to_csv(OUT / "threads.csv", index=False)
    variability.to_csv(OUT / "variability.csv", index=False)
    tests.to_csv(OUT / "tests.csv", index=False)
    sc = pd.read_csv(OUT / "scatter_raw.csv")
    scatter_table, correlation = analyze_scatter(sc)
    scatter_table.to_csv(OUT / "scatter.csv", index=False)
    (OUT / "summary.md").write_text(report(summary, tests, p, plan) + factors_report(summary, threads, plan)
                                    + processors_report(axis_table, growth, plan) + scatter_report(scatter_table, correlation, p, plan))
    info((OUT / "summary.md").read_text())
    save(patterns_figure(summary), OUT / "dht_patterns.png")
    save(variability_figure(variability), OUT / "dht_variability.png")
    save(scatter_figure(scatter_table, correlation), OUT / "dht_scatter.png")
    save(processors_figure(axis_table), OUT / "dht_processors.png")
    ok(f"results in {OUT}: raw.csv, summary.csv, threads.csv, processors.csv, variability.csv, tests.csv, scatter_raw.csv, scatter.csv, summary.md, "
       "dht_patterns.png, dht_variability.png, dht_scatter.png, dht_processors.png")


def _summarize_latency(p: int, plan: Plan, latencies: list[int], jitter: int) -> None:
    """The latency study's tables, summary.md and figure, from its raw.csv and scatter_raw.csv."""
    import pandas as pd

    raw, sc = pd.read_csv(LATENCY_OUT / "raw.csv"), pd.read_csv(LATENCY_OUT / "scatter_raw.csv")
    scatter, rho, growth, axis, patterns = analyze_latency(raw, sc)
    cost = proxy_cost(scatter, patterns)
    for name, table in (("scatter", scatter), ("rho", rho), ("growth", growth), ("processors", axis), ("patterns", patterns),
                        ("proxy_cost", cost)):
        if table is not None:
            table.to_csv(LATENCY_OUT / f"{name}.csv", index=False)
    (LATENCY_OUT / "summary.md").write_text(latency_report(scatter, rho, growth, patterns, cost, p, plan, latencies, jitter))
    info((LATENCY_OUT / "summary.md").read_text())
    save(latency_figure(scatter, rho, axis), LATENCY_OUT / "dht_latency.png")
    ok(f"results in {LATENCY_OUT}: raw.csv, scatter_raw.csv, scatter.csv, rho.csv, growth.csv, processors.csv, "
       "patterns.csv, proxy_cost.csv, summary.md, dht_latency.png, toxiproxy.log")


class _Appender:
    """A CSV written a point at a time (its header from the first rows), each flushed before the next run."""

    def __init__(self, path: Path):
        self.path, self.fields = path, None

    def add(self, rows: list[dict]) -> None:
        import csv
        if not rows:
            return
        with self.path.open("a", newline="") as f:
            if self.fields is None:
                self.fields = list(rows[0])
                csv.DictWriter(f, self.fields).writeheader()
            csv.DictWriter(f, self.fields).writerows(rows)


@contextlib.contextmanager
def stopped_by_sigterm():
    """SIGTERM as Ctrl-C while the benchmark runs: the `finally` that ends its JVMs runs either way (by
    default SIGTERM ends Python at once, and the JVMs it started went on under init)."""
    def stop(signum, frame):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _check_matrices(plan: Plan, matrices: Path | None) -> None:
    """Every matrix file given, read before the first measurement, not after minutes of other phases."""
    for m in plan.matrices if matrices else ():
        if (matrices / f"{m}.mtx").is_file():
            check_matrix(matrices / f"{m}.mtx")


def _emptied(folder: Path) -> None:
    """The results folder, made if missing and emptied of an earlier run's files."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*"):
        old.unlink()


def check_matrix(path: Path) -> None:
    """A MatrixMarket coordinate file's header and size line, read before any measurement: a bad file is
    named now, not after the patterns and the study have run (about ten minutes)."""
    try:
        with path.open() as f:
            header = f.readline()
            line = f.readline()
            while line.startswith("%"):
                line = f.readline()
    except (OSError, UnicodeDecodeError) as e:
        raise LabError(f"{path} cannot be read: {e}", "pass a folder of MatrixMarket text files (NAME.mtx)")
    if not header.lower().startswith("%%matrixmarket matrix coordinate"):
        raise LabError(f"{path} is no MatrixMarket coordinate file (its first line: {header.strip()[:80]!r})",
                       "its first line must be '%%MatrixMarket matrix coordinate real general' (or pattern, symmetric)")
    parts = line.split()
    if len(parts) != 3 or not all(x.isdigit() and int(x) > 0 for x in parts):
        raise LabError(f"{path}: the size line should be 'ROWS COLUMNS ENTRIES', got {line.strip()[:80]!r}",
                       "fix the file, or leave it out and the kit makes that matrix with Table 1's size")


def study_design(plan: Plan, seed: int = 2004) -> list[tuple[int, int, int]]:
    """The randomised study's runs, (q, L, n): per queue depth, each L equally often (as near as
    study_runs allows), shuffled, each with a random request size n in 1..8."""
    rng = random.Random(seed)
    design = []
    for q in (plan.q, 0):
        ls = [plan.study_ls[i % len(plan.study_ls)] for i in range(plan.study_runs)]
        rng.shuffle(ls)
        design += [(q, blocking, rng.randint(1, 8)) for blocking in ls]
    return design


def _rows(r: dict, part: str, run: int) -> list[dict]:
    """One process's JSON line as rows: one per phase it ran, with its three times per value (µs)."""
    return [{"part": part, "run": run, "process": r["id"], "p": r["p"], "impl": r["impl"], "q": r["q"],
             "pattern": r["pattern"], "n": r["n"], "L": r["L"], "values": r["values"], "phase": PHASES[i],
             "init_us": r["init_us_per_value"][i], "completion_us": r["completion_us_per_value"][i],
             "barrier_us": r["barrier_us_per_value"][i], "service_waiting_share": r["service_waiting_share"],
             "buffers": r.get("buffers"), "target_requests": r.get("target_requests"), **{k: r.get(k) for k in SHARES}}   # Hazelcast has neither
            for i in range(len(r["completion_us_per_value"]))]
