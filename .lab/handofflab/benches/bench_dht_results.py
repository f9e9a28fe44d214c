"""What a `./lab bench dht` run says: its CSVs read into the summary (medians, ratios to the raw put of
the same run), the paper's variability and its Kruskal-Wallis tests (raw and Holm-adjusted), the
processor axis and the matrix scatter against the paper's Table 1; summary.md's text and the figures.
A run's plan is read for its sizes only (bench_dht.Plan)."""
from __future__ import annotations

import os

from handofflab.benches import dht

PHASES = ("insert", "find", "delete")
KINDS = ("init", "completion", "barrier")      # the paper's initiation, completion and barrier times
BASELINE = "raw-put"
ALPHA = 0.05
SHARES = ("service_table_share", "service_queue_share", "service_idle_share", "writer_busy_share", "buffer_wait_share")


def cells(plan) -> list[tuple[int, int]]:
    """The kit's table's (q, receive buffers) in the patterns: one factor at a time. Its default pool is q + 4, so
    turning the queue off (q = 0) also shrank the pool (to 4): from the queue on with q + 4 buffers, the first step
    turns the queue off and keeps the pool (what the queue alone buys), the second shrinks the pool (what the pool
    alone buys). The fourth cell of the 2 x 2, the queue on with 4 buffers, cannot run: the queue holds up to q
    buffers and the header handler needs one more."""
    return [(plan.q, plan.q + 4), (0, plan.q + 4), (0, 4)]


PAPER_LOOP = "raw-put L=1"   # the raw put as the paper's loop: a wait after every put


def label(impl: str, q: int, buffers, blocking: int = 100) -> str:
    """The implementation's name in the summary: the kit's table with its cell; the raw put waited for every L
    puts ("raw-put", the baseline, L = 100 as the table's) or after each one (the paper's loop)."""
    if impl == "dht":
        return f"dht q={q} pool={buffers}"
    return PAPER_LOOP if impl == "raw-put" and blocking == 1 else impl


def analyze(df):
    """summary: median time per value per (pattern, implementation, phase), with the ratio to the raw
    put's median insert from the same run; variability: the paper's per-run measure; tests: Kruskal-
    Wallis of the variability across L, per q, phase and kind (their Table 2)."""
    import pandas as pd
    from scipy import stats

    pat = df[(df.part == "patterns") & (df["values"] > 0)]   # 1-N: the processes that insert nothing are left out
    pat = pat.assign(impl=[label(i, q, int(b) if pd.notna(b) else None, blocking)
                           for i, q, b, blocking in zip(pat.impl, pat.q, pat.buffers, pat.L)])
    summary = pat.groupby(["pattern", "impl", "phase"], sort=False).agg(
        runs=("run", "nunique"), init_us=("init_us", "median"), completion_us=("completion_us", "median"),
        barrier_us=("barrier_us", "median"), waiting_share=("service_waiting_share", "max")).reset_index()
    base = summary[(summary.impl == BASELINE)][["pattern", "completion_us"]].rename(columns={"completion_us": "raw_put_us"})
    summary = summary.merge(base, on="pattern", how="left")
    summary["ratio_to_raw_put"] = summary.completion_us / summary.raw_put_us
    # Where the kit's targets spent the run (one row per process and run: the shares are the process's, not a
    # phase's): the busiest target of each run (the one that served most requests: in N-1, process 0), then the
    # median over runs.
    kit = df[(df.part == "patterns") & (df.impl == "dht") & (df.phase == "insert")]
    kit = kit.assign(impl=[label("dht", q, int(b)) for q, b in zip(kit.q, kit.buffers)])
    busiest = kit.loc[kit.groupby(["pattern", "impl", "run"], sort=False).target_requests.idxmax()]
    threads = busiest.groupby(["pattern", "impl"], sort=False)[list(SHARES)].median().reset_index()

    st = df[df.part == "study"]
    var = []
    for (run, phase), g in st.groupby(["run", "phase"]):
        row = {"run": run, "phase": phase, "q": g.q.iloc[0], "L": g.L.iloc[0], "n": g.n.iloc[0]}
        for kind in KINDS:
            t = g[f"{kind}_us"]
            row[kind] = (t.max() - t.mean()) / t.mean() if t.mean() > 0 else float("nan")
        var.append(row)
    variability = pd.DataFrame(var)
    tests = []
    for (q, phase), g in variability.groupby(["q", "phase"]):
        groups = {L: s for L, s in g.groupby("L")}
        for kind in KINDS:
            samples = [s[kind].dropna().to_numpy() for s in groups.values() if len(s[kind].dropna()) >= 2]
            if len(samples) >= 2 and len({x for s in samples for x in s}) > 1:
                h, p = stats.kruskal(*samples)
                tests.append({"q": q, "phase": phase, "kind": kind, "groups": len(samples), "H": h,
                              "critical": stats.chi2.ppf(1 - ALPHA, len(samples) - 1), "p": p, "significant": p < ALPHA})
    columns = ["q", "phase", "kind", "groups", "H", "critical", "p", "significant", "p_holm", "significant_holm"]
    tests = pd.DataFrame(tests, columns=columns)  # the columns kept when too few runs to test
    # Many tests at once: about ALPHA x their number reject by chance alone when L has no effect (0.9 of 18).
    # Holm's step-down adjustment keeps the chance of any false rejection at ALPHA across the whole table.
    tests["p_holm"] = holm(tests.p.tolist())
    tests["significant_holm"] = tests.p_holm < ALPHA
    return summary, variability, tests, threads


def holm(ps: list[float]) -> list[float]:
    """Holm's adjusted p-values (step-down, monotone, capped at 1), in the order given."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adjusted, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        adjusted[i] = running
    return adjusted


def report(summary, tests, p: int, plan) -> str:
    lines = [f"{p} processes (separate JVMs) on loopback, {plan.values} values per inserting process, n = 1, L = 100. "
             f"Times per value, µs, medians over processes and runs. Ratio: completion time over the raw put's "
             "median insert completion time for the same pattern, from this run.", "",
             "What each implementation does, and does not:", "",
             f"- **dht q=… pool=…**: the kit's table: requests through each target's pool of receive buffers and its "
             "service thread, replies back, values checked stored, found and deleted exactly once. At q = 0 the "
             "completion queue is off (a buffer waits for its reply to be written before the next request). Three "
             f"cells, one factor at a time: q = {plan.q} and 0 with the same pool of {plan.q + 4}, then q = 0 with 4.",
             "- **raw-put**: the paper's LAPI_Put baseline as far as TCP allows: each insert written into an array "
             "at the target, at the address its origin names, no table, no service thread's queue, waited for every "
             "L = 100 puts, as the table is; the ratios are to it. Puts only are timed. It is not one-sided: a thread "
             "of the target reads the socket and a writer thread replies. Checked exactly once: each origin owns its "
             "part of the array, and an untimed raw get reads every address back and compares.",
             f"- **{PAPER_LOOP}**: the same raw put as the paper's own loop, a wait for the counter after every put: "
             "what a one-sided put costs when nothing is pipelined. Checked the same way.",
             "- **hazelcast**: the same loops on a Hazelcast IMap, one member per process, started with the JVM "
             "options its documentation asks for and with no backup copy (the kit's table keeps none); checked "
             "exactly once.", "",
             "| pattern | implementation | phase | runs | initiation | completion | barrier | service waiting (busiest target) | ratio to raw put |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in summary.itertuples():
        lines.append(f"| {r.pattern} | {r.impl} | {r.phase} | {r.runs} | {r.init_us:.1f} | {r.completion_us:.1f} | "
                     f"{r.barrier_us:.1f} | {r.waiting_share:.2f} | {r.ratio_to_raw_put:.2f} |")
    lines += ["", f"Randomised N-N study: {plan.study_runs} runs per queue depth, L from {list(plan.study_ls)}, n from 1 to 8. "
              "Kruskal-Wallis of the paper's variability ((largest - mean) / mean over the processes of a run) across L:", "",
              "| q | phase | time | groups | H | critical (0.05) | p | L matters (p < 0.05) | Holm-adjusted p | L matters (Holm) |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for t in tests.itertuples():
        lines.append(f"| {t.q} | {t.phase} | {t.kind} | {t.groups} | {t.H:.2f} | {t.critical:.2f} | {t.p:.3f} | "
                     f"{'yes' if t.significant else 'no'} | {t.p_holm:.3f} | {'yes' if t.significant_holm else 'no'} |")
    if len(tests):
        lines += ["", f"{len(tests)} tests: if L had no effect at all, about {ALPHA * len(tests):.1f} of them would "
                  f"reject at 0.05 by chance alone; {int(tests.significant.sum())} did. Holm's adjustment keeps the "
                  f"chance of even one false rejection in the whole table at 0.05: {int(tests.significant_holm.sum())} "
                  "reject after it. A 'yes' in the raw column alone is no evidence that L matters."]
    return "\n".join(lines) + "\n"


def factors_report(summary, threads, plan) -> str:
    """What the completion queue alone buys and what the pool alone buys (completion-time ratios between cells that
    differ in one factor), and where each target's threads spent the run."""
    on, off, small = (label("dht", q, b) for q, b in cells(plan))
    med = summary.set_index(["pattern", "impl", "phase"]).completion_us
    lines = ["", "One factor at a time: completion time per value, as a ratio between cells of the kit's table that "
             f"differ in one factor (below 1: the first is faster). Queue alone: {on} over {off}. Pool alone: {off} over "
             f"{small}.", "", "| pattern | phase | queue alone | pool alone |", "|---|---|---|---|"]
    for pattern in dht.PATTERNS:
        for phase in PHASES:
            try:
                lines.append(f"| {pattern} | {phase} | {med[pattern, on, phase] / med[pattern, off, phase]:.2f} | "
                             f"{med[pattern, off, phase] / med[pattern, small, phase]:.2f} |")
            except KeyError:   # a cell with no run (a partial plan): nothing to compare
                continue
    lines += ["", "Where the targets' threads spent the run (shares of the span from a target's first request to the end of "
              "its last; the target that served most requests in each run, median over runs): the service thread applying requests to the table, waiting in its completion "
              "queue for a reply to be written, and idle; the busiest reply writer writing; the header handlers waiting "
              "for a free receive buffer (summed: above 1 when several wait at once). A service thread that waits in its "
              "queue longer than it works is held by the reply writer: by its writing when the writer is busy, by the "
              "hand-off itself (a thread's wake-up) when the writer is mostly idle.", "",
              "| pattern | cell | service: table | service: queue | service: idle | writer busy | buffer wait | limits |",
              "|---|---|---|---|---|---|---|---|"]
    for r in threads.itertuples():
        limit = limiting(r.service_table_share, r.service_queue_share, r.service_idle_share, r.writer_busy_share)
        lines.append(f"| {r.pattern} | {r.impl} | {r.service_table_share:.2f} | {r.service_queue_share:.2f} | "
                     f"{r.service_idle_share:.2f} | {r.writer_busy_share:.2f} | {r.buffer_wait_share:.2f} | {limit} |")
    return "\n".join(lines) + "\n"


def analyze_processors(df):
    """The processor axis: per pattern, p and phase, the median barrier and completion time per value over the
    inserting processes and runs; and per pattern, the least-squares line of the insert barrier time against p
    (slope, R^2): the paper's Fig. 3 has N-1 grow linearly with p (every process's values go to one target)."""
    import pandas as pd
    from scipy import stats

    ax = df[(df.part == "processors") & (df["values"] > 0)]
    cores = os.cpu_count() or 1
    table = ax.groupby(["pattern", "p", "phase"], sort=True).agg(
        runs=("run", "nunique"), completion_us=("completion_us", "median"), barrier_us=("barrier_us", "median")).reset_index()
    table["oversubscribed"] = table.p > cores
    growth = []
    for pattern, g in table[table.phase == "insert"].groupby("pattern"):
        if g.p.nunique() >= 2:
            fit = stats.linregress(g.p, g.barrier_us)
            r2 = fit.rvalue ** 2 if g.barrier_us.nunique() > 1 else float("nan")   # a flat line explains nothing
            growth.append({"pattern": pattern, "slope_us_per_process": fit.slope, "r2": r2,
                           "at_smallest_p": g.barrier_us.iloc[0], "at_largest_p": g.barrier_us.iloc[-1]})
    return table, pd.DataFrame(growth, columns=["pattern", "slope_us_per_process", "r2", "at_smallest_p", "at_largest_p"])


def processors_report(table, growth, plan) -> str:
    cores = os.cpu_count() or 1
    lines = ["", f"The processor axis (the paper's Fig. 3): the kit's table at q = {plan.q}, p = "
             f"{', '.join(map(str, plan.processors))} processes on this machine's {cores} cores; a p above the cores is "
             "oversubscribed (the processes share cores, so time grows with p for that reason too). Barrier time per "
             "value of an inserting process, µs, median over processes and runs:", "",
             "| pattern | p | oversubscribed | runs | insert | find | delete |", "|---|---|---|---|---|---|---|"]
    for (pattern, pp), g in table.groupby(["pattern", "p"], sort=True):
        by = g.set_index("phase").barrier_us
        lines.append(f"| {pattern} | {pp} | {'yes' if g.oversubscribed.iloc[0] else 'no'} | {g.runs.max()} | "
                     + " | ".join(f"{by.get(ph, float('nan')):.1f}" for ph in PHASES) + " |")
    if len(growth):
        lines += ["", "A straight line through the insert barrier times against p, per pattern (the paper: N-1 grows "
                  "linearly, one target serving every process's values):", "",
                  "| pattern | µs per value per added process | R² | at the smallest p | at the largest p |",
                  "|---|---|---|---|---|"]
        for r in growth.itertuples():
            lines.append(f"| {r.pattern} | {r.slope_us_per_process:.1f} | {r.r2:.2f} | {r.at_smallest_p:.1f} | "
                         f"{r.at_largest_p:.1f} |")
    return "\n".join(lines) + "\n"


def processors_figure(table):
    """Insert barrier time per value against p, one line per pattern; oversubscribed p shaded."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5))
    ax = fig.subplots()
    ins = table[table.phase == "insert"]
    for pattern, g in ins.groupby("pattern"):
        ax.plot(g.p, g.barrier_us, marker="o", label=pattern.upper())
    cores = os.cpu_count() or 1
    if len(ins) and ins.p.max() > cores:
        ax.axvspan(cores + 0.5, ins.p.max() + 0.5, color="gray", alpha=0.15, label="oversubscribed (p > cores)")
    ax.set_xlabel("processes p")
    ax.set_ylabel("insert barrier time per value (µs, median)")
    ax.set_title("The processor axis: does N-1 grow linearly with p?")
    ax.legend(fontsize=8)
    return fig


def limiting(table: float, queue: float, idle: float, writer: float) -> str:
    """Which of a target's threads holds its throughput back, from their shares of the run."""
    if idle > 0.5:
        return "not the target's threads: its service thread is idle over half the run"
    if queue <= table:
        return "the service thread's table work"
    if writer < queue / 2:
        return "the hand-off to the reply writer (its wake-up: the writer itself is mostly idle)"
    return "the reply writer's writing"


def patterns_figure(summary):
    """Completion time per value, per pattern and implementation, one panel per phase (the paper's Fig. 3)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 4))
    axes = fig.subplots(1, len(PHASES), squeeze=False)[0]
    impls = list(dict.fromkeys(summary.impl))
    width = 0.8 / len(impls)
    for ax, phase in zip(axes, PHASES):
        part = summary[summary.phase == phase]
        for i, impl in enumerate(impls):
            d = part[part.impl == impl].set_index("pattern").reindex(dht.PATTERNS)
            ax.bar([x + i * width for x in range(len(dht.PATTERNS))], d.completion_us, width, label=impl)
        ax.set_xticks([x + width * (len(impls) - 1) / 2 for x in range(len(dht.PATTERNS))], [s.upper() for s in dht.PATTERNS])
        ax.set_ylabel("completion time per value (µs, median)")
        ax.set_title(f"{phase}")
        ax.legend(fontsize=8)
    fig.suptitle("The kit's distributed table against a raw one-sided put, same run")
    return fig


def variability_figure(variability):
    """The paper's Fig. 5: mean variability against L, per queue depth, for inserts and finds."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4))
    axes = fig.subplots(1, 2, squeeze=False)[0]
    for ax, phase in zip(axes, ("insert", "find")):
        part = variability[variability.phase == phase]
        for (q, kind), g in part.melt(id_vars=["q", "L"], value_vars=["completion", "barrier"], var_name="kind").groupby(["q", "kind"]):
            m = g.groupby("L").value.mean()
            ax.plot(m.index, m.values, marker="o", label=f"q = {q}, {kind}")
        ax.set_xlabel("blocking factor L")
        ax.set_ylabel("mean variability (max - mean) / mean")
        ax.set_title(f"{phase}s")
        ax.legend(fontsize=8)
    fig.suptitle("Does the blocking factor L reduce the spread of the processes' times?")
    return fig


def analyze_scatter(sc):
    """Per matrix: the median barrier time per non-zero of each implementation, their ratio (the kit's
    table over send/receive) and the paper's; and Spearman's rank correlation of each ratio with the
    number of non-zeros (the paper's caption: the threads' relative cost falls as the matrix grows)."""
    from scipy import stats

    med = sc.pivot_table(index=["matrix", "source", "nonzeros", "rows", "longest_row"], columns="impl",
                         values="barrier_us_per_nonzero", aggfunc="median").reset_index()
    med["runs"] = sc.groupby("matrix").run.nunique().reindex(med.matrix).to_numpy()
    med["ratio"] = med["dht"] / med["send-recv"]
    paper = {name: cse / mpi for name, _, _, cse, mpi in dht.TABLE1}
    med["paper_ratio"] = med.matrix.map(paper)
    med = med.sort_values("nonzeros", ascending=False).reset_index(drop=True)
    correlation = {}
    for col in ("ratio", "paper_ratio"):
        if len(med) >= 3:
            rho, p = stats.spearmanr(med.nonzeros, med[col])
            correlation[col] = (float(rho), float(p))
    return med, correlation


def scatter_report(table, correlation, p: int, plan) -> str:
    lines = ["", f"Matrix scatter (the paper's Figs. 1-2): process 0 of {p} sends row i to process i % p, L = 100, "
             f"q = {plan.q}. A matrix 'made by the kit' has the size and non-zeros of the paper's Table 1's, not its "
             "entries; a 'MatrixMarket' one was read from the folder given with --matrices. Barrier time per non-zero, µs, median of the runs; ratio: the kit's "
             "table over blocking send/receive, from the same run; the paper's ratio from its Table 1.", "",
             "| matrix | source | rows | non-zeros | longest row | runs | table | send/recv | ratio | paper's ratio |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for _, r in table.iterrows():
        lines.append(f"| {r.matrix} | {r.source} | {r.rows} | {r.nonzeros} | {r.longest_row} | {r.runs} | {r['dht']:.3f} | "
                     f"{r['send-recv']:.3f} | {r.ratio:.2f} | {r.paper_ratio:.2f} |")
    for col, who in (("ratio", "this run"), ("paper_ratio", "the paper")):
        if col in correlation:
            rho, pv = correlation[col]
            lines.append(f"\nSpearman rho(non-zeros, ratio), {who}: {rho:.2f} (p = {pv:.3g}, {len(table)} matrices)")
    return "\n".join(lines) + "\n"


def scatter_figure(table, correlation):
    """Table 1 as a picture: the threads' relative cost against the matrix's size, the kit's and the paper's."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.5))
    ax = fig.subplots()
    for col, label, marker in (("ratio", "this run (kit's table / send-recv)", "o"), ("paper_ratio", "the paper (CSE_Hash / MPI)", "s")):
        rho = f", Spearman rho {correlation[col][0]:.2f}" if col in correlation else ""
        ax.semilogx(table.nonzeros, table[col], marker, label=label + rho)
    ax.axhline(1, color="gray", lw=1)
    ax.set_xlabel("non-zeros of the matrix")
    ax.set_ylabel("barrier time per non-zero, ratio to send/receive")
    ax.set_title("Matrix scatter: does the table's relative cost fall as the matrix grows?")
    ax.legend(fontsize=8)
    return fig


# -- the latency study (bench dht --latency) -------------------------------------------------------------------

def networks_of(df) -> list[str]:
    """The study's networks in the order they were given: loopback, then each latency (as the CSV holds them)."""
    return list(dict.fromkeys(df.network))


def analyze_latency(raw, sc):
    """Per network: the scatter's ratio per matrix (the kit's table over send/receive) and its Spearman rho with
    the non-zeros; the N-1 line of insert barrier time against p; the patterns' insert completion times with
    their ratio to the raw put on the same network; and Toxiproxy's own cost (its 0 ms over loopback)."""
    import pandas as pd

    nets = networks_of(sc) if len(sc) else networks_of(raw)
    scatter, rho = [], []
    for net in nets:
        table, correlation = analyze_scatter(sc[sc.network == net])
        scatter.append(table.assign(network=net))
        if "ratio" in correlation:
            rho.append({"network": net, "rho": correlation["ratio"][0], "p": correlation["ratio"][1], "matrices": len(table)})
        paper = correlation.get("paper_ratio"), len(table)   # over the same matrices as the run's
    if paper[0]:
        rho.append({"network": "the paper (IBM SP)", "rho": paper[0][0], "p": paper[0][1], "matrices": paper[1]})
    scatter = pd.concat(scatter, ignore_index=True)
    growth = []
    for net in nets:
        _, g = analyze_processors(raw[raw.network == net])
        growth += [{"network": net, **r} for r in g[g.pattern == "n-1"].to_dict("records")]
    axis = raw[(raw.part == "processors") & (raw["values"] > 0) & (raw.phase == "insert")]
    axis = axis.groupby(["network", "p"], sort=False).barrier_us.median().reset_index()
    pat = raw[(raw.part == "patterns") & (raw["values"] > 0) & (raw.phase == "insert")]
    patterns = pat.groupby(["network", "pattern", "impl"], sort=False).agg(
        runs=("run", "nunique"), completion_us=("completion_us", "median"), barrier_us=("barrier_us", "median")).reset_index()
    base = patterns[patterns.impl == BASELINE][["network", "pattern", "completion_us"]].rename(columns={"completion_us": "raw_put_us"})
    patterns = patterns.merge(base, on=["network", "pattern"], how="left")
    patterns["ratio_to_raw_put"] = patterns.completion_us / patterns.raw_put_us
    return scatter, pd.DataFrame(rho), pd.DataFrame(growth), axis, patterns


def proxy_cost(scatter, patterns, proxied: str = "0 ms", direct: str = "loopback"):
    """Toxiproxy's own cost, where the run measured it (0 ms through the proxy beside loopback): per scatter
    implementation, the median over the matrices of their barrier-time ratio; per pattern and implementation,
    the ratio of insert completion times. None when the run had no 0 ms."""
    import pandas as pd

    if proxied not in set(scatter.network) | set(patterns.network):
        return None
    rows = []
    by = scatter.set_index(["network", "matrix"])
    for impl in dht.SCATTER_IMPLS:
        if proxied in set(scatter.network):
            ratios = (by.loc[proxied][impl] / by.loc[direct][impl]).dropna()
            rows.append({"what": f"scatter, {impl} (median over {len(ratios)} matrices)", "ratio": ratios.median()})
    pt = patterns.set_index(["network", "pattern", "impl"]).completion_us
    for (net, pattern, impl), v in pt.items():
        if net == proxied and (direct, pattern, impl) in pt.index:
            rows.append({"what": f"{pattern} {impl}, insert completion", "ratio": v / pt[direct, pattern, impl]})
    return pd.DataFrame(rows)


def latency_report(scatter, rho, growth, patterns, cost, p: int, plan, latencies, jitter: int) -> str:
    nets = networks_of(scatter)
    lines = [f"{p} processes (separate JVMs) on this machine's {os.cpu_count()} cores. Networks: **loopback** (the processes "
             f"reach each other directly), and **Toxiproxy** at {', '.join(f'{ms} ms' for ms in latencies)}: a proxy in "
             "front of each process, through which every other process reaches it (the kit's table, the send/receive "
             f"baseline and the Hazelcast cluster alike), each direction of each link held that long, jitter ± {jitter} ms. "
             "A process's requests to itself cross no proxy. Every run still checked each value stored, found and deleted "
             "(or scattered) exactly once.", ""]
    lines += ["### Toxiproxy's own cost", ""]
    if cost is None or not len(cost):
        lines += ["Not measured: this run had no 0 ms. Give `--latency 0,...` to measure the proxy beside loopback.", ""]
    else:
        lines += ["The same points through Toxiproxy at 0 ms (no toxic: the proxy alone), as a ratio to loopback:", "",
                  "| what | 0 ms / loopback |", "|---|---|"]
        lines += [f"| {r.what} | {r.ratio:.2f} |" for r in cost.itertuples()]
        lines += [""]
    lines += ["### The scatter's relative cost (the paper's Table 1)", "",
              "Barrier time per non-zero of the kit's table over blocking send/receive's, per matrix, median of the runs "
              f"(L = 100, q = {plan.q}); the paper's ratio from its Table 1 (CSE_Hash over MPI).", "",
              "| matrix | non-zeros | " + " | ".join(nets) + " | paper |", "|---|---|" + "---|" * (len(nets) + 1)]
    wide = scatter.pivot_table(index=["matrix", "nonzeros", "paper_ratio"], columns="network", values="ratio").reset_index()
    wide = wide.sort_values("nonzeros", ascending=False)
    for _, r in wide.iterrows():
        lines.append(f"| {r.matrix} | {r.nonzeros} | " + " | ".join(f"{r[n]:.2f}" for n in nets) + f" | {r.paper_ratio:.2f} |")
    lines += ["", "Spearman rho of the ratio with the non-zeros (negative: the table's relative cost falls as the matrix "
              "grows, the paper's reading of its Table 1):", "", "| network | rho | p | matrices |", "|---|---|---|---|"]
    lines += [f"| {r.network} | {r.rho:.2f} | {r.p:.3g} | {r.matrices} |" for r in rho.itertuples()]
    lines += ["", "### N-1's growth with p (the paper's Fig. 3)", "",
              "The insert barrier time per value of N-1 (every process's values to process 0) against p, a least-squares "
              f"line per network; p = {', '.join(map(str, plan.processors))} on {os.cpu_count()} cores (a p above the "
              "cores shares them, so time grows with p for that reason too).", "",
              "| network | µs per value per added process | R² | at the smallest p | at the largest p |", "|---|---|---|---|---|"]
    lines += [f"| {r.network} | {r.slope_us_per_process:.1f} | {r.r2:.2f} | {r.at_smallest_p:.1f} | {r.at_largest_p:.1f} |"
              for r in growth.itertuples()]
    lines += ["", "### The patterns on each network", "",
              f"Insert completion time per value (µs, median), {plan.values} values per inserting process, L = 100; ratio "
              "to the raw put's on the same network.", "",
              "| network | pattern | implementation | runs | completion | ratio to raw put |", "|---|---|---|---|---|---|"]
    lines += [f"| {r.network} | {r.pattern} | {r.impl} | {r.runs} | {r.completion_us:.1f} | {r.ratio_to_raw_put:.2f} |"
              for r in patterns.itertuples()]
    lines += ["", "### Where this regime differs from the paper's", "",
              "The paper's processes each had a node of an IBM SP and talked over its switch, a few microseconds and "
              "hundreds of MB/s away. Here the processes share 2 cores, and the latency is Toxiproxy's: milliseconds, "
              "added by a user-space proxy that also copies every byte (its own cost is the 0 ms row above). A wait for a "
              "reply therefore costs thousands of times more here than on the SP, against the same work per value, so "
              "what the table saves or loses by waiting every L requests weighs far more in these ratios than in the "
              "paper's."]
    return "\n".join(lines) + "\n"


def latency_figure(scatter, rho, axis):
    """Left: the scatter's ratio against the non-zeros, one series per network, and the paper's. Right: N-1's
    insert barrier time against p, one line per network."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 4.5))
    left, right = fig.subplots(1, 2)
    said = dict(zip(rho.network, rho.rho))
    for net in networks_of(scatter):
        t = scatter[scatter.network == net].sort_values("nonzeros")
        left.semilogx(t.nonzeros, t.ratio, "o-", ms=4, lw=1, label=f"{net} (rho {said.get(net, float('nan')):.2f})")
    t = scatter.drop_duplicates("matrix").sort_values("nonzeros")
    left.semilogx(t.nonzeros, t.paper_ratio, "s", color="black", label=f"the paper (rho {said.get('the paper (IBM SP)', float('nan')):.2f})")
    left.axhline(1, color="gray", lw=1)
    left.set_xlabel("non-zeros of the matrix")
    left.set_ylabel("barrier time per non-zero, table / send-recv")
    left.set_title("Scatter: the table's relative cost per network")
    left.legend(fontsize=8)
    for net in networks_of(axis):
        g = axis[axis.network == net]
        right.plot(g.p, g.barrier_us, marker="o", label=net)
    right.set_xlabel("processes p")
    right.set_ylabel("N-1 insert barrier time per value (µs, median)")
    right.set_title("N-1's growth with p, per network")
    right.legend(fontsize=8)
    return fig
