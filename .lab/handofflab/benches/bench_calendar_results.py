"""What a `./lab bench calendar` run says: each point's median, quartiles and ratio to SQLite from the same
run, the paper's two claims tested (Kruskal-Wallis across the lists, Mann-Whitney pool against spawn), the
tables of summary.md, and the figures. No files written here (the notebook calls these too)."""
from __future__ import annotations

DATABASE = "SQLite"          # the baseline every ratio is taken against
MODES = ("pool", "spawn", "virtual")
THREADS = 64                 # the paper's limit on threads running at once
ALPHA = 0.05


def analyze(df):
    """The runs (raw.csv as a DataFrame) summarised per point, with the ratio to the database's
    median from the same run, and the paper's two claims tested; no files written (the notebook
    calls this too)."""
    import pandas as pd
    from scipy import stats

    good = df[df["status"] == "ok"]
    swept = ["cores"] if "cores" in df.columns and df["cores"].nunique() > 1 else []  # a factor only when swept
    swept += ["limit"] if "limit" in df.columns and df["limit"].nunique() > 1 else []
    keys = ["store", "threads", "n", *swept]
    summary = df.groupby(keys, sort=False).agg(runs=("total_s", "size"),
                                               ok_runs=("status", lambda st: int((st == "ok").sum()))).reset_index()
    med = good.groupby(keys, sort=False)["total_s"].describe()[["50%", "25%", "75%"]]
    med.columns = ["median_s", "q1_s", "q3_s"]
    summary = summary.merge(med.reset_index(), on=keys, how="left")
    base = summary[summary["store"] == DATABASE][["threads", "n", *swept, "median_s"]].rename(columns={"median_s": "db_median_s"})
    summary = summary.merge(base, on=["threads", "n", *swept], how="left")
    summary["ratio_to_db"] = summary["median_s"] / summary["db_median_s"]
    order = {s: i for i, s in enumerate(sorted(set(df["store"]) - {DATABASE}) + [DATABASE])}
    summary = summary.sort_values([*swept, "n", "threads", "store"], key=lambda c: c.map(order) if c.name == "store" else
                                  c.map({m: i for i, m in enumerate(MODES)}) if c.name == "threads" else c)

    rows = []  # the paper's two claims, each point tested on its own (no correction: a handful of tests)
    kinds = [s for s in summary["store"].unique() if s != DATABASE]
    unit = {"cores": "cores", "limit": "threads at once"}
    on = (lambda k: "".join(f", {v} {unit[f]}" for f, v in zip(swept, k[len(k) - len(swept):])))
    for key, g in good[good["store"].isin(kinds)].groupby(["threads", "n", *swept]):
        mode, n = key[0], key[1]
        samples = [g[g["store"] == k]["total_s"].to_numpy() for k in kinds]
        if all(len(s) >= 2 for s in samples) and len(samples) >= 2 and g["total_s"].nunique() > 1:  # all tied: no test
            h, p = stats.kruskal(*samples)
            rows.append(dict(claim="lists differ (Kruskal-Wallis)", where=f"{mode}, n={n}{on(key)}", statistic=h, p=p,
                             significant=p < ALPHA))
    for key, g in good.groupby(["store", "n", *swept]):
        store, n = key[0], key[1]
        pool, spawn = g[g["threads"] == "pool"]["total_s"], g[g["threads"] == "spawn"]["total_s"]
        if len(pool) >= 2 and len(spawn) >= 2:
            u, p = stats.mannwhitneyu(pool, spawn, alternative="two-sided")
            rows.append(dict(claim="pool vs spawn (Mann-Whitney)", where=f"{store}, n={n}{on(key)}", statistic=u, p=p,
                             significant=p < ALPHA, pool_over_spawn=pool.median() / spawn.median()))
    return summary, pd.DataFrame(rows)


DATABASE_REQUESTS = "n + n/16 creates, 2 n joins and events, n + n/16 deletes"


def database_requests(n: int) -> str:
    """What one run of the database workload asks, for the plot's axis."""
    return f"{n + n // 16} creates, {2 * n} joins and events, {n + n // 16} deletes"


def tables(summary, tests) -> list[str]:
    """A summary's rows and its tests as markdown tables."""
    import pandas as pd

    fmt = (lambda x: f"{x:.3f}" if pd.notna(x) else "—")
    lines = ["| store | threads | n |" + (" cores |" if "cores" in summary else "") + (" X |" if "limit" in summary else "")
             + " runs ok | median s | q1–q3 s | ratio to " + DATABASE + " |",
             "|---|---|---|" + ("---|" if "cores" in summary else "") + ("---|" if "limit" in summary else "") + "---|---|---|---|"]
    for _, r in summary.iterrows():
        cores = (f" {r['cores']} |" if "cores" in summary else "") + (f" {r['limit']} |" if "limit" in summary else "")
        lines.append(f"| {r['store']} | {r['threads']} | {r['n']} |{cores} {r['ok_runs']}/{r['runs']} | {fmt(r['median_s'])} "
                     f"| {fmt(r['q1_s'])}–{fmt(r['q3_s'])} | {fmt(r['ratio_to_db'])} |")
    lines += ["", f"Tests at α = {ALPHA}, each point on its own:", "", "| claim | where | statistic | p | significant |",
              "|---|---|---|---|---|"]
    for _, t in tests.iterrows():
        extra = f" (pool/spawn medians {t['pool_over_spawn']:.2f})" if pd.notna(t.get("pool_over_spawn")) else ""
        lines.append(f"| {t['claim']} | {t['where']}{extra} | {t['statistic']:.2f} | {t['p']:.4f} | "
                     f"{'yes' if t['significant'] else 'no'} |")
    return lines


def times_figure(summary, stores: list[str] | None = None, requests=lambda n: f"{3 * n} requests",
                 what: str = "the kit's store with each list"):
    """Median time per store and thread management, one panel per n (log scale, quartiles as bars); `requests(n)`:
    what one run asks, `what`: the stores set beside the database."""
    from matplotlib.figure import Figure  # no pyplot state: the notebook shows it, the CLI saves it

    summary = on_all_cores(summary)
    modes = [m for m in MODES if m in set(summary["threads"])]
    stores = stores or list(dict.fromkeys(summary["store"]))
    ns = sorted(summary["n"].unique())
    fig = Figure(figsize=(5.5 * len(ns), 4))
    axes = fig.subplots(1, len(ns), squeeze=False)
    width = 0.8 / len(modes)
    for ax, n in zip(axes[0], ns):
        for i, mode in enumerate(modes):
            part = summary[(summary["n"] == n) & (summary["threads"] == mode)].set_index("store").reindex(stores)
            xs = [x + i * width for x in range(len(stores))]
            err = [(part["median_s"] - part["q1_s"]).clip(lower=0), (part["q3_s"] - part["median_s"]).clip(lower=0)]
            ax.bar(xs, part["median_s"], width, yerr=err, capsize=2, label=mode)
        ax.set_xticks([x + width * (len(modes) - 1) / 2 for x in range(len(stores))], stores, rotation=15)
        ax.set_yscale("log")
        ax.set_ylabel(f"seconds for {requests(n)}\n(median, quartiles)", fontsize=8)
        ax.set_title(f"n = {n}: {what}, and {DATABASE}")
        ax.legend(title="threads")
    fig.tight_layout()
    return fig


def ratio_figure(summary):
    """Each kit store's median over the database's, against n."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    summary = on_all_cores(summary)
    kit = summary[summary["store"] != DATABASE]
    for (store, mode), g in kit.groupby(["store", "threads"], sort=False):
        ax.plot(g["n"], g["ratio_to_db"], marker="o", label=f"{store}, {mode}")
    ax.axhline(1, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (events created, edited and deleted)")
    ax.set_ylabel(f"time / {DATABASE}'s time (same run)")
    ax.set_title(f"The kit's file store against {DATABASE}")
    ax.legend(fontsize=7)
    return fig


def on_all_cores(summary):
    """The points (runs or a summary's rows) measured on every core (a --full run also has them on fewer), at the
    paper's X when it was run (a sweep of X also has others): one setting of both, as the notebook reads a run."""
    return _at_paper_x(_on_every_core(summary))


def _on_every_core(summary):
    """The points measured on all the machine's cores (a --full run also has them on fewer)."""
    return summary[summary["cores"] == summary["cores"].max()] if "cores" in summary else summary


def _at_paper_x(summary):
    """The points at the paper's X, 64 threads at once, when the run had it (else at its largest X)."""
    if "limit" not in summary:
        return summary
    return summary[summary["limit"] == (THREADS if THREADS in set(summary["limit"]) else summary["limit"].max())]


def limits_figure(summary):
    """The paper's Fig. 3: median time against X, the threads running at once, per store and thread management,
    at the largest n, on every core."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 4.5))
    ax = fig.subplots()
    summary = _on_every_core(summary)
    n = summary["n"].max()
    at_n = summary[summary["n"] == n]
    colours = {s: f"C{i}" for i, s in enumerate(dict.fromkeys(at_n["store"]))}
    styles = {m: st for m, st in zip(MODES, ("-", "--", ":"))}
    for (store, mode), g in at_n.groupby(["store", "threads"], sort=False):
        g = g.sort_values("limit")
        ax.plot(g["limit"], g["median_s"], marker="o", color=colours[store], linestyle=styles.get(mode, "-"),
                label=f"{store}, {mode}")
    ax.set_xscale("log", base=2)
    xs = sorted(at_n["limit"].unique())
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.set_yscale("log")
    ax.set_xlabel("X: threads running at once")
    ax.set_ylabel(f"seconds for {3 * n} requests (median)")
    ax.set_title(f"n = {n}: time against the number of threads (the paper's Fig. 3)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))   # beside the lines, not over them
    fig.tight_layout()
    return fig


def cores_figure(summary):
    """The speed-up of each store and thread management from 1 core to k, at the largest n."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    summary = _at_paper_x(summary)
    n = summary["n"].max()
    at_n = summary[summary["n"] == n]
    colours = {s: f"C{i}" for i, s in enumerate(dict.fromkeys(at_n["store"]))}   # a colour per store,
    styles = {m: st for m, st in zip(MODES, ("-", "--", ":"))}                     # a line per thread management
    for (store, mode), g in at_n.groupby(["store", "threads"], sort=False):
        g = g.sort_values("cores")
        one = g[g["cores"] == g["cores"].min()]["median_s"].iloc[0]
        ax.plot(g["cores"], one / g["median_s"], marker="o", color=colours[store], linestyle=styles.get(mode, "-"),
                label=f"{store}, {mode}")
    ks = sorted(at_n["cores"].unique())
    ax.plot(ks, [k / ks[0] for k in ks], color="grey", linestyle="--", linewidth=1, label="linear")
    ax.set_xlabel("cores the benchmark may run on")
    ax.set_ylabel(f"speed-up over {min(ks)} core (median times)")
    ax.set_title(f"n = {n}: does the store use more cores?")
    ax.legend(fontsize=7)
    return fig
