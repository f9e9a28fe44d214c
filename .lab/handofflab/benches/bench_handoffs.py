"""`./lab bench handoffs`: JMH races each kit handoff against the queues a Java programmer would
pick instead (the JDK's blocking queues, JCTools' array queues), one acceptor and 1..N workers.
Every figure is also given as a ratio to ArrayBlockingQueue at the same N, measured in the same
run, because a 2-core machine's absolute numbers drift from run to run. Then, in the same run, what
sleeping costs and saves: each handoff's put-to-take latency with arrivals paced (p50, p99, p99.9) and
what its idle workers burn. CSV, summary and plots under results/bench/handoffs/. A measurement, never
a test."""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from handofflab.ground import catalog, paths, toolchain
from handofflab.java import javabuild
from handofflab.benches.bench_shared import alone
from handofflab.ground.console import LabError, heading, info, ok, warn

OUT = paths.RESULTS / "bench" / "handoffs"
BENCHMARK = "handofflab.benchmarks.HandoffThroughput"
SLEEPING = "handofflab.benchmarks.SleepingCost"  # latency with arrivals paced, and idle CPU: not JMH's to measure
BASELINE = "ArrayBlockingQueue"
JDK = ("ArrayBlockingQueue", "LinkedBlockingQueue", "LinkedTransferQueue", "SynchronousQueue")
JCTOOLS = ("SpmcArrayQueue", "MpmcArrayQueue")


@dataclass(frozen=True)
class Plan:
    workers: tuple[int, ...]
    forks: int
    warmups: int
    iterations: int
    seconds: int  # per warm-up and measured iteration
    # What sleeping costs and saves (SleepingCost): ids handed over one at a time with an exponential gap of
    # `gap_us` on average (10 000 connections a second), then `idle_s` seconds of nothing to take
    items: int = 5_000
    gap_us: int = 100
    idle_s: float = 1.0


QUICK = Plan(workers=(1, 2, 4), forks=1, warmups=1, iterations=3, seconds=1)
FULL = Plan(workers=(), forks=2, warmups=3, iterations=5, seconds=2, items=20_000, idle_s=3.0)  # workers: per machine


HANDOFF_SRC = paths.JAVA / "handoffs" / "src" / "main" / "java" / "handofflab" / "handoffs"


def kit_handoffs(cat: catalog.Catalog) -> dict[str, str]:
    """Java class -> catalog name, for every catalogued handoff that is a class of java/handoffs
    (LockedAccept and ThreadPerClient are servers, not handoffs: nothing is handed over)."""
    return {h.java: h.name for h in cat.handoffs.values()
            if h.java != "Handoff" and (HANDOFF_SRC / f"{h.java}.java").exists()}


def buggy_handoffs(cat: catalog.Catalog) -> dict[str, str]:
    """Java class -> bug, for the catalogued buggy variants: never benchmarked by default, but
    `--impl NotifyBuffer` shows what the benchmark's own exactly-once guard does with one."""
    return {v.java: v.bug for v in cat.variants.values()
            if not v.correct and v.java and (HANDOFF_SRC / f"{v.java}.java").exists()}


def full_workers() -> tuple[int, ...]:
    """1, 2, 4, ... up to the machine's cores (the acceptor is one more thread)."""
    cores, out, n = os.cpu_count() or 2, [], 1
    while n <= max(8, cores):
        out.append(n)
        n *= 2
    return tuple(out)


def run(mode: str = "quick", impls: list[str] | None = None, workers: list[int] | None = None) -> Path:
    cat = catalog.load()
    kit = kit_handoffs(cat)
    buggy = buggy_handoffs(cat)
    known = [*JDK, *JCTOOLS, *kit]
    by_concept = {name: java for java, name in kit.items()}  # the catalog's name (SharedBuffer) works too
    impls = [by_concept.get(i, i) for i in impls or known]
    chosen = list(dict.fromkeys([BASELINE, *impls]))  # the baseline always runs: ratios need it
    for name in chosen:
        if name not in known and name not in buggy:
            raise LabError(f"unknown handoff or queue '{name}'", f"choose from: {', '.join(known)} (or the catalog's names: {', '.join(by_concept)}; "
                                                                 f"or a buggy variant: {', '.join(buggy)})")
    plan = QUICK if mode == "quick" else replace(FULL, workers=full_workers())
    ns = tuple(workers) if workers else plan.workers
    if any(n < 1 for n in ns):
        raise LabError(f"--workers must all be at least 1, got {','.join(map(str, ns))}",
                       "the acceptor needs a worker to hand to: e.g. --workers 1,2,4")
    with alone("bench handoffs"):
        OUT.mkdir(parents=True, exist_ok=True)
        result, log = OUT / "jmh.json", OUT / "jmh.log"
        result.unlink(missing_ok=True)
        points = len(chosen) * len(ns)
        heading(f"bench handoffs --{mode}: {len(chosen)} handoffs x workers {','.join(map(str, ns))} = {points} points; "
                f"{plan.forks} fork(s) x {plan.iterations} x {plan.seconds} s measured each, after "
                f"{plan.warmups} x {plan.seconds} s warm-up")
        # How each kit class is sized (slots, or a channel per worker) is the catalog's word, not Java's.
        sized_by = ",".join(f"{v.java}={v.profile.sized_by}" for v in cat.variants.values() if v.java)
        cmd = [toolchain.server_java(), "-cp", javabuild.classpath("benchmarks"), "org.openjdk.jmh.Main", BENCHMARK,
               "-p", f"impl={','.join(chosen)}", "-p", f"workers={','.join(map(str, ns))}",
               "-jvmArgsAppend", f"-Dhandofflab.sized_by={sized_by}",
               "-f", str(plan.forks), "-wi", str(plan.warmups), "-w", f"{plan.seconds}s",
               "-i", str(plan.iterations), "-r", f"{plan.seconds}s", "-to", "60s",
               "-rf", "json", "-rff", str(result)]
        failed = _run_jmh(cmd, log)
        rows = _rows(result, kit, chosen, ns)
        if not any(r["status"] == "ok" for r in rows):
            raise LabError(f"JMH measured nothing (its output is in {log})", "run `./lab doctor`, then look at the log")
        sleeping = _run_sleeping(chosen, ns, plan, sized_by)
        summary = summarize(rows, partial=bool(failed) or (sleeping["status"] != "ok").any(), mode=mode,
                            sleeping=sleeping)
        plot(summary)
        plot_sleeping(sleeping, kit)
        ok(f"results in {OUT}: results.csv, sleeping.csv, summary.md, throughput.png, sleeping.png "
           "(JMH's own output: jmh.log, jmh.json)")
        return OUT


def _run_sleeping(chosen: list[str], ns: tuple[int, ...], plan: Plan, sized_by: str):
    """SleepingCost over the same handoffs and widths, in the same run: put-to-take latency with paced arrivals, and
    the idle workers' CPU. Its rows, a point that lost an id or deadlocked marked failed with its reason."""
    import pandas as pd

    out = OUT / "sleeping.csv"
    out.unlink(missing_ok=True)
    heading(f"what sleeping costs and saves: {plan.items} ids one at a time ({plan.gap_us} µs apart on average), "
            f"then {plan.idle_s:g} s idle, each point")
    cmd = [toolchain.server_java(), f"-Dhandofflab.sized_by={sized_by}", "-cp", javabuild.classpath("benchmarks"),
           SLEEPING, ",".join(chosen), ",".join(map(str, ns)), str(plan.items), str(plan.gap_us), str(plan.idle_s),
           str(out)]

    def on_line(line: str) -> None:
        if line.startswith("sleeping-cost "):
            f = line.split(" ", 1)[1].strip().split(",", 10)
            info(f"… {f[0] + ':' + f[1]:28s} " + (f"p50 {f[5]} µs, p99 {f[6]} µs, p99.9 {f[7]} µs, idle "
                                                  f"{100 * float(f[9]):.1f} % of a core" if f[2] == "ok" else
                                                  f"failed: {f[10].strip(chr(34))}"))
        elif line.strip():
            warn(line.rstrip())

    code = toolchain.run_streaming(cmd, on_line)
    if not out.exists():
        raise LabError(f"SleepingCost wrote no results (exit {code})", "run `./lab doctor`, then the command again")
    return pd.read_csv(out, keep_default_na=True)


def _run_jmh(cmd: list[str], log: Path) -> list[str]:
    """Runs JMH, showing one line per point (its progress and result) and keeping all it says in
    `log`. Returns the points that failed, as 'impl:workers'."""
    failed, seen = [], {"params": None, "progress": ""}
    with log.open("w") as keep:
        def on_line(line: str) -> None:
            keep.write(line)
            params = seen["params"]
            if line.startswith("# Parameters: ("):  # JMH lists them in its own order
                p = dict(re.findall(r"(\w+) = (\w+)", line))
                seen["params"] = f"{p.get('impl')}:{p.get('workers')}"
            elif m := re.match(r"# Run progress: ([\d.]+)% complete, ETA (\S+)", line):
                seen["progress"] = f"{float(m[1]):5.1f}% done, ETA {m[2]}"
            elif re.match(r"\s+[\d.]+ ±?\(?", line) and params and "ops/us" in line:
                info(f"… {seen['progress']}  {params:28s} {line.strip()}")
            elif "<failure>" in line and params:
                failed.append(params)
            elif line.startswith("java.lang.IllegalStateException: ") and params in failed:
                warn(f"{params} failed: {line.split(': ', 1)[1].strip()} (all of it is in {log})")
        code = toolchain.run_streaming(cmd, on_line)
    if code != 0:
        warn(f"JMH exited with code {code}; the points it finished are kept, and the summary is marked PARTIAL")
        failed.append("jmh-exit")
    return failed


def _rows(result: Path, kit: dict[str, str], chosen: list[str], ns: tuple[int, ...]):
    measured = {}
    if result.exists():
        for b in json.loads(result.read_text()):
            p, m = b["params"], b["primaryMetric"]
            measured[(p["impl"], int(p["workers"]))] = m
    rows = []
    for impl in chosen:
        for n in ns:
            m = measured.get((impl, n))
            kind = "JDK" if impl in JDK else "JCTools" if impl in JCTOOLS else "kit" if impl in kit else "buggy"
            row = {"impl": impl, "kind": kind, "handoff": kit.get(impl, ""), "workers": n,
                   "status": "ok" if m else "failed", "items_per_us": None, "error_99": None,
                   "samples": None}
            if m:
                raw = [x for fork in m["rawData"] for x in fork]
                row.update(items_per_us=m["score"], samples=len(raw),
                           error_99=m["scoreError"] if m["scoreError"] == m["scoreError"] else None,
                           min=min(raw), max=max(raw))
            rows.append(row)
    return rows


def summarize(rows: list[dict], partial: bool = False, mode: str = "quick", sleeping=None):
    import pandas as pd

    df = pd.DataFrame(rows)
    base = df[df["impl"] == BASELINE].set_index("workers")["items_per_us"]
    df["ratio_to_abq"] = df.apply(lambda r: r["items_per_us"] / base.get(r["workers"])
                                  if pd.notna(r["items_per_us"]) and pd.notna(base.get(r["workers"])) else None, axis=1)
    df["ratio_error_pct"] = ratio_errors(df)
    df["partial"] = partial
    df.to_csv(OUT / "results.csv", index=False)
    ns = sorted(int(n) for n in df["workers"].unique())
    lines = [f"Items handed over per µs (JMH throughput; min–max of the measured iterations), and in brackets "
             f"the ratio to {BASELINE} at the same number of workers, measured in the same run. "
             f"{os.cpu_count()} cores.", "",
             "| handoff | from | " + " | ".join(f"{n} worker{'s' * (n > 1)}" for n in ns) + " |",
             "|---|---|" + "---|" * len(ns)]
    for impl, d in df.groupby("impl", sort=False):
        cells = []
        for n in ns:
            r = d[d["workers"] == n].iloc[0]
            spread = (f" ±{r['ratio_error_pct']:.0f} %" if pd.notna(r["ratio_error_pct"]) else " ±?") \
                if impl != BASELINE else ""
            cells.append("failed" if r["status"] != "ok" else
                         f"{r['items_per_us']:.3g} ({r['min']:.3g}–{r['max']:.3g}) [×{r['ratio_to_abq']:.2f}{spread}]"
                         if pd.notna(r["ratio_to_abq"]) else f"{r['items_per_us']:.3g}")
        name = f"{r['handoff']} (`{impl}`)" if r["handoff"] else f"`{impl}`"
        lines.append(f"| {name} | {r['kind']} | " + " | ".join(cells) + " |")
    others = df[(df["impl"] != BASELINE) & df["ratio_to_abq"].notna()]
    iterations = int(df["samples"].max()) if df["samples"].notna().any() else 0
    wide = int((others["ratio_error_pct"].isna() | (others["ratio_error_pct"] > 10)).sum())
    lines += [] if others.empty else ["", "± after a ratio: its 99.9 % interval, from JMH's interval of each score (the two relative errors "
              "added in quadrature; ± ? where one score had a single iteration). "
              + (f"**{wide} of {len(others)} ratios are wider than ±10 %**: with {iterations} "
                 "measured iterations per point, read them as a direction, not a figure, and "
                 + ("run `--full` (2 forks x 5 iterations) before quoting one." if mode == "quick" else
                    "quote each with its interval: on a machine this noisy more iterations narrow it only slowly.")
                 if wide else f"All {len(others)} ratios are within ±10 %.")]
    lines += targets_lines(df)
    if sleeping is not None:
        lines += ["", *sleeping_lines(sleeping, df)]
    if partial:
        lines.insert(0, "**PARTIAL: some points failed or JMH stopped early; these are the points it finished.**\n")
    (OUT / "summary.md").write_text("\n".join(lines) + "\n")
    info("\n".join(lines))
    return df


# The fast handoffs' bars (the fast chapter): each against the field's best of its kind, in the same run.
TARGETS = (("FastBuffer", "SpmcArrayQueue", 0.8), ("FastPht", "ArrayBlockingQueue", 1.0))


def targets_lines(df) -> list[str]:
    """Each fast handoff's throughput over its bar's, width by width, with the 99.9 % interval of the quotient (the
    two scores' relative errors in quadrature, as ratio_errors), and whether the point estimate reaches the bar."""
    import math

    lines = []
    for impl, against, bar in TARGETS:
        mine, theirs = df[df["impl"] == impl].set_index("workers"), df[df["impl"] == against].set_index("workers")
        cells = []
        for n in sorted(set(mine.index) & set(theirs.index)):
            a, b = mine.loc[n], theirs.loc[n]
            if a["status"] != "ok" or b["status"] != "ok":
                continue
            ratio = a["items_per_us"] / b["items_per_us"]
            rel = math.hypot(a["error_99"] / a["items_per_us"], b["error_99"] / b["items_per_us"])
            spread = f" ±{100 * rel:.0f} %" if not math.isnan(rel) else " ±?"
            cells.append(f"{n}: ×{ratio:.2f}{spread} {'≥' if ratio >= bar else '<'} {bar}")
        if cells:
            lines.append(f"- `{impl}` / `{against}` (the bar: ×{bar}): " + "; ".join(cells))
    return ["", "The fast handoffs against their bars, in the same run (workers: ratio, its 99.9 % interval):", *lines] \
        if lines else []


def sleeping_lines(sleeping, df) -> list[str]:
    """summary.md's second table: each handoff's put-to-take latency with paced arrivals (p50 / p99 / p99.9, µs),
    its p99 as a ratio to the baseline's in the same run, and what its idle workers burn (% of one core, all of
    them together)."""
    import pandas as pd

    names = dict(zip(df["impl"], df["handoff"].fillna("")))
    kinds = dict(zip(df["impl"], df["kind"]))
    ns = sorted(int(n) for n in sleeping["workers"].unique())
    base = sleeping[sleeping["impl"] == BASELINE].set_index("workers")["p99_us"]
    gap = sleeping["gap_us"].iloc[0]
    lines = [f"What sleeping costs and saves: ids handed over one at a time, {gap:g} µs apart on average (exponential "
             f"gaps; the acceptor sleeps between them): put-to-take latency p50 / p99 / p99.9 in µs, [× the p99 of "
             f"{BASELINE} at the same width, same run]; then with nothing to take, the workers' CPU in % of one core "
             "(all of them together).", "",
             "| handoff | from | " + " | ".join(f"{n} worker{'s' * (n > 1)}" for n in ns) + " |",
             "|---|---|" + "---|" * len(ns)]
    for impl, d in sleeping.groupby("impl", sort=False):
        cells = []
        for n in ns:
            r = d[d["workers"] == n]
            if r.empty or r.iloc[0]["status"] != "ok":
                cells.append("failed" if not r.empty else "")
                continue
            r = r.iloc[0]
            ratio = r["p99_us"] / base[n] if n in base and pd.notna(base[n]) and base[n] > 0 else None
            cells.append(f"{_us(r['p50_us'])} / {_us(r['p99_us'])} / {_us(r['p999_us'])}"
                         + (f" [×{ratio:.2f}]" if ratio is not None and impl != BASELINE else "")
                         + f"; idle {100 * r['idle_cores']:.2g} %")
        name = f"{names.get(impl)} (`{impl}`)" if names.get(impl) else f"`{impl}`"
        lines.append(f"| {name} | {kinds.get(impl, '')} | " + " | ".join(cells) + " |")
    failed = sleeping[sleeping["status"] != "ok"]
    for _, r in failed.iterrows():
        lines.append(f"\n{r['impl']} with {r['workers']} worker(s) failed: {r['detail']}")
    return lines


def _us(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def ratio_errors(df):
    """Each point's ratio to the baseline: the half-width of its 99.9 % interval, in per cent of the ratio. JMH gives
    each score's 99.9 % half-width (Student's t over the iterations); for a quotient of two independent means the
    relative errors add in quadrature (the delta method). NaN where a score has no interval (one iteration)."""
    import numpy as np

    rel = df["error_99"].astype(float) / df["items_per_us"].astype(float)
    base = df["workers"].map(rel[df["impl"] == BASELINE].groupby(df["workers"]).first())
    return 100 * np.where(df["impl"] == BASELINE, rel, np.hypot(rel, base))


def plot(df) -> None:
    from handofflab.benches.bench_shared import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    for impl, d in df[df["status"] == "ok"].groupby("impl", sort=False):
        d = d.sort_values("workers")
        style = {"kit": "-", "JDK": "--", "JCTools": ":", "buggy": "-."}[d["kind"].iloc[0]]
        label = d["handoff"].iloc[0] or impl
        axes[0].plot(d["workers"], d["items_per_us"], style, marker="o", label=label)
        axes[1].plot(d["workers"], d["ratio_to_abq"], style, marker="o", label=label)
    axes[0].set_yscale("log")
    axes[0].set_ylabel("items handed over per µs (log)")
    axes[1].set_yscale("log")
    axes[1].axhline(1.0, color="black", linewidth=0.8)
    axes[1].set_ylabel(f"ratio to {BASELINE}, same run (log)")
    ns = sorted(int(n) for n in df["workers"].unique())
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns, [str(n) for n in ns])
        ax.set_xlabel("worker threads (one acceptor)")
    axes[0].set_title(f"Throughput, {os.cpu_count()} cores (solid: the kit; dashed: JDK; dotted: JCTools)", fontsize=9)
    axes[1].set_title("Relative to ArrayBlockingQueue", fontsize=9)
    axes[1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    save(fig, OUT / "throughput.png")


def plot_sleeping(sleeping, kit: dict[str, str]) -> None:
    """sleeping.png: each handoff's p99 put-to-take latency, and its idle workers' CPU, against the workers."""
    from handofflab.benches.bench_shared import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    ok_rows = sleeping[sleeping["status"] == "ok"]
    for impl, d in ok_rows.groupby("impl", sort=False):
        d = d.sort_values("workers")
        style = "-" if impl in kit else ":" if impl in JCTOOLS else "--" if impl in JDK else "-."
        label = kit.get(impl, impl)
        axes[0].plot(d["workers"], d["p99_us"], style, marker="o", label=label)
        axes[1].plot(d["workers"], 100 * d["idle_cores"], style, marker="o", label=label)
    axes[0].set_yscale("log")
    axes[0].set_ylabel("p99 put-to-take latency, µs (log)")
    axes[1].set_ylabel("idle workers' CPU, % of one core")
    ns = sorted(int(n) for n in sleeping["workers"].unique())
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns, [str(n) for n in ns])
        ax.set_xlabel("worker threads (one acceptor)")
    gap = sleeping["gap_us"].iloc[0] if len(sleeping) else 0
    axes[0].set_title(f"Latency, one id every {gap:g} µs on average, {os.cpu_count()} cores", fontsize=9)
    axes[1].set_title("What idle workers burn (a sleeper: nothing)", fontsize=9)
    axes[1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    save(fig, OUT / "sleeping.png")
