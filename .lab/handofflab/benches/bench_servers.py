"""`./lab bench servers`: the paper's experiment (Roussev & Wu 2001, Table 1 and 2; 2006,
Fig. 4 and 5) on loopback, at scaled service times, every point repeated, each set against
the Little's-law bound and the paper's figure scaled the same way. CSV and plots under
results/bench/servers/. Benchmarks are measurements, not tests: nothing here passes or fails
on a time."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from handofflab.ground import catalog, paths
from handofflab.benches import servers
from handofflab.benches.bench_shared import alone, pyplot, save, stream
from handofflab.ground.console import LabError, heading, info, ok, warn

OUT = paths.RESULTS / "bench" / "servers"
CHILDREN, REQUESTS = 140, 20           # the paper's load: 140 concurrent connections x 20 = 2800
PAPER_TR = 250                         # the paper's t_r (ms) that its tables are scaled from


@dataclass(frozen=True)
class Plan:
    """What one mode measures. t_r is scaled down from the paper's 250/500 ms so a run takes minutes."""
    t_rs: tuple[int, ...]
    reps: int
    sweep_workers: tuple[int, ...]     # Table 2 / Fig. 5
    sweep_slots: tuple[int, ...]       # Fig. 4's 101 slots and smaller buffers
    iterative_requests: int            # per child: the iterative server serves one at a time


QUICK = Plan(t_rs=(10,), reps=5, sweep_workers=(10, 30, 50, 70), sweep_slots=(11, 101), iterative_requests=1)
FULL = Plan(t_rs=(25, 50), reps=5, sweep_workers=(10, 30, 40, 50, 60, 70, 80), sweep_slots=(11, 31, 101),
            iterative_requests=REQUESTS)
# Table 1 unscaled: each design at its paper settings, at the paper's own t_r, to set efficiencies beside the
# paper's (the PHT's 0.961 above all); no sweeps, since a point is about 15 s a run
PAPER = Plan(t_rs=(PAPER_TR,), reps=5, sweep_workers=(), sweep_slots=(), iterative_requests=1)
MODES = {"quick": QUICK, "full": FULL, "paper": PAPER}


def points(plan: Plan, designs: list[str], cat: catalog.Catalog) -> list[str]:
    """design:t_r:workers:slots[:requests] for ServerBench, in the order they run."""
    out = []
    for tr in plan.t_rs:
        for name in designs:  # Table 1: each design at the paper's settings
            workers, slots = cat.server(name).paper_settings
            extra = f":{plan.iterative_requests}" if name == "Iterative" else ""
            out.append(f"{name}:{tr}:{workers}:{slots}{extra}")
        sweeps = {kind: [d for d in designs if kind in cat.server(d).sweeps] for kind in ("workers", "slots")}
        for name in sweeps["workers"]:  # Table 2 / Fig. 5: the worker sweep
            out += [f"{name}:{tr}:{w}:101" for w in plan.sweep_workers if f"{name}:{tr}:{w}:101" not in out]
        for name in sweeps["slots"]:  # Fig. 4 and smaller tables
            out += [f"{name}:{tr}:50:{m}" for m in plan.sweep_slots if f"{name}:{tr}:50:{m}" not in out]
    return out


def run(mode: str = "quick", designs: list[str] | None = None, reps: int | None = None) -> Path:
    cat = catalog.load()
    plan = MODES[mode]
    if reps is not None:
        if reps < 1:
            raise LabError(f"--reps must be at least 1, got {reps}", "use 5 or more: the Kruskal-Wallis and Mann-Whitney tests need them")
        plan = Plan(plan.t_rs, reps, plan.sweep_workers, plan.sweep_slots, plan.iterative_requests)
    chosen = designs or list(cat.servers)
    for d in chosen:
        cat.server(d)  # an unknown name is a clear error before anything runs
    with alone("bench servers"):
        OUT.mkdir(parents=True, exist_ok=True)
        raw = OUT / "raw.csv"
        raw.unlink(missing_ok=True)
        pts = points(plan, chosen, cat)
        heading(f"bench servers --{mode}: {len(pts)} points x {plan.reps} runs; t_r = "
                f"{', '.join(map(str, plan.t_rs))} ms (the paper's 250/500 ms scaled down); "
                f"{CHILDREN} clients x {REQUESTS} requests")
        cmd = servers.java_command("handofflab.servers.ServerBench",
                                   [str(raw), str(plan.reps), str(CHILDREN), str(REQUESTS), *pts])
        partial = stream(cmd, raw, "run `./lab serve SharedBuffer` to see why the servers fail")
        summary = summarize(raw, cat, partial)
        plot(summary, cat)
        ok(f"results in {OUT}: raw.csv, summary.csv, summary.md, time_vs_workers.png, efficiency.png")
        return OUT


def _scaled(ms: float, paper_tr: int, tr: int) -> float:
    """A paper time (ms at the paper's t_r) scaled to seconds at our t_r: a pure scaling, which
    assumes the time is all service time (it is not: see the note on efficiencies)."""
    return ms / 1000 * tr / paper_tr


def summarize(raw: Path, cat: catalog.Catalog, partial: bool = False):
    import pandas as pd

    df = pd.read_csv(raw)
    good = df[df["status"] == "ok"]
    keys = ["design", "t_r_ms", "workers", "slots", "requests"]
    g = df.groupby(keys, sort=False)
    summary = g.agg(runs=("seconds", "size"), ok_runs=("status", lambda st: int((st == "ok").sum())),
                    bound_s=("bound_seconds", "first")).reset_index()
    stats = good.groupby(keys, sort=False)["seconds"].describe()[["50%", "min", "max", "25%", "75%"]]
    stats.columns = ["median_s", "min_s", "max_s", "q1_s", "q3_s"]
    summary = summary.merge(stats.reset_index(), on=keys, how="left")
    summary["efficiency"] = summary["bound_s"] / summary["median_s"]
    # the clients' latencies, median over the runs: p99, and the slowest request (which ends a run; absent in
    # results written before the kit recorded it)
    tails = [c for c in ("p99_ms", "max_ms") if c in good]
    summary = summary.merge(good.groupby(keys, sort=False)[tails].median().reset_index(), on=keys, how="left")

    def paper(r):  # the paper's time for this point, scaled to this t_r
        s = cat.servers.get(r["design"])
        if r["requests"] != REQUESTS:
            return None
        for sw in cat.paper_sweeps:
            if sw.design == r["design"] and r["workers"] in sw.workers and r["slots"] == 101:
                return _scaled(sw.ms[sw.workers.index(r["workers"])], sw.t_r, r["t_r_ms"])
        if s and PAPER_TR in s.table1 and (r["workers"], r["slots"]) == s.paper_settings:
            return _scaled(s.table1[PAPER_TR], PAPER_TR, r["t_r_ms"])
        return None

    summary["paper_scaled_s"] = summary.apply(paper, axis=1)
    summary["partial"] = partial
    summary.to_csv(OUT / "summary.csv", index=False)
    lines = ["| design | t_r ms | W | slots | N | runs ok | median s | min–max s | bound s | efficiency | paper, scaled s "
             "| p99 ms | slowest ms |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    fmt = (lambda x: f"{x:.3f}" if pd.notna(x) else "—")  # NaN: no run ok; None: the paper has no figure
    fmt0 = (lambda x: f"{x:.0f}" if x is not None and pd.notna(x) else "—")
    for _, r in summary.iterrows():
        n = CHILDREN * r["requests"]
        lines.append(f"| {r['design']} | {r['t_r_ms']} | {r['workers']} | {r['slots']} | {n} | {r['ok_runs']}/{r['runs']} "
                     f"| {fmt(r['median_s'])} | {fmt(r['min_s'])}–{fmt(r['max_s'])} | {r['bound_s']:.3f} "
                     f"| {fmt(r['efficiency'])} | {fmt(r['paper_scaled_s'])} "
                     f"| {fmt0(r.get('p99_ms'))} | {fmt0(r.get('max_ms'))} |")
    if partial:
        lines.insert(0, "**PARTIAL: the benchmark stopped early; these are the runs it finished.**\n")
    (OUT / "summary.md").write_text("\n".join(lines) + "\n")
    bad_runs = df[df["status"] != "ok"]
    if len(bad_runs):
        warn(f"{len(bad_runs)} run(s) were not exactly once or did not start; they are kept in raw.csv "
             "(status column) and left out of the medians")
    info("\n".join(lines))
    return summary


def plot(summary, cat) -> None:
    plt = pyplot()
    sweeps = [n for n, s in cat.servers.items() if "workers" in s.sweeps]
    sweep = summary[(summary["slots"] == 101) & summary["design"].isin(sweeps)]
    t_rs = sorted(summary["t_r_ms"].unique())
    fig, axes = plt.subplots(1, len(t_rs), figsize=(6.5 * len(t_rs), 4.5), squeeze=False)
    for ax, tr in zip(axes[0], t_rs):
        part = sweep[sweep["t_r_ms"] == tr]
        for design, d in part.groupby("design"):
            d = d.sort_values("workers")
            if len(d) < 2:
                continue
            line = ax.errorbar(d["workers"], d["median_s"], yerr=[d["median_s"] - d["min_s"], d["max_s"] - d["median_s"]],
                               marker="o", capsize=3, label=f"{design} (measured median, min–max)")
            for sw in cat.paper_sweeps:
                if sw.design == design:
                    ax.plot(sw.workers, [_scaled(m, sw.t_r, tr) for m in sw.ms], linestyle="--",
                            color=line[0].get_color(), alpha=0.6, label=f"{design}: {sw.figure}, scaled")
        bound = part.groupby("workers")["bound_s"].first()  # ServerBench computed it with each run
        if len(bound):
            ax.plot(bound.index, bound.values, color="black", linestyle=":", label="Little's law bound N·t_r/min(W, C)")
        ax.set_title(f"2800 requests, t_r = {tr} ms")
        ax.set_xlabel("worker threads W")
        ax.set_ylabel("time to serve all (s)")
        ax.set_yscale("log")
        ax.legend(fontsize=7)
    save(fig, OUT / "time_vs_workers.png")

    main = summary[summary.apply(lambda r: (r["workers"], r["slots"]) == cat.servers[r["design"]].paper_settings, axis=1)]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    labels = [f"{r['design']}\nt_r={r['t_r_ms']}" for _, r in main.iterrows()]
    ax.bar(range(len(main)), main["efficiency"].fillna(0), color="tab:blue")
    ax.axhline(1.0, color="black", linestyle=":", label="the bound (efficiency 1)")
    ax.set_xticks(range(len(main)), labels, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("efficiency = bound / measured median")
    ax.set_title("Each design at the paper's settings (Table 1)")
    ax.legend(fontsize=8)
    save(fig, OUT / "efficiency.png")

