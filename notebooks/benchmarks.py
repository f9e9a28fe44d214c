# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The benchmarks against the papers
#
# Three parts:
#
# 1. **The papers' numbers, recomputed.** Every time Roussev & Wu print (Table 1,
#    Table 2, Fig. 5) is set against the least time queueing theory allows, and their
#    percentages are recomputed.
# 2. **This kit's servers on loopback** (`./lab bench servers`): times, bounds,
#    efficiencies, and a statistical comparison of the designs in the manner of
#    Malard & Stewart (Kruskal–Wallis, then pairwise rank tests).
# 3. **The bare handoffs** (`./lab bench handoffs`, JMH): throughput relative to
#    `ArrayBlockingQueue`.
#
# A benchmark takes minutes, so when this machine has no results yet the notebook
# reads a small **reference result** shipped in `notebooks/reference/` (recorded on a
# 2-core machine with `--quick`) and says so.

# %%
from pathlib import Path

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from scipy import stats

from handofflab.ground import catalog, paths

cat = catalog.load()
N, CLIENTS = 2800, 140          # the papers' requests in all, and simultaneous connections (35 hosts x 4)


def source(kind, name, complete):
    """This machine's latest result if it is a complete run, else the shipped reference.
    (A test or a one-design run also writes results/bench/: `complete` tells them apart.)"""
    mine = paths.RESULTS / "bench" / kind / name
    if mine.exists():
        why = complete(pd.read_csv(mine))
        if why is None:
            return mine, "this machine's latest run"
        print(f"not using {paths.shown(mine)}: {why}")
    return paths.NOTEBOOKS / "reference" / kind / name, "the shipped reference result (notebooks/reference/)"


def complete_servers(summary):
    designs = summary[(summary.workers == 50) & (summary.slots == 101)].design.nunique()
    if summary.partial.any():
        return "a partial run"
    return None if designs >= 5 else f"only {designs} designs at W = 50 (run ./lab bench servers --quick)"


def complete_handoffs(results):
    if results.partial.any():
        return "a partial run"
    n = results.impl.nunique()
    return None if n >= 6 else f"only {n} handoffs (run ./lab bench handoffs --quick)"


# %% [markdown]
# ## 1. The papers' numbers against Little's law
#
# A server with $W$ workers, each busy $t_r$ per request, finishes at most $W$
# requests every $t_r$; and it never has more than $C = 140$ requests at once (the
# clients' connections). So $N$ requests need at least
#
# $$T_{\min} = \frac{N\,t_r}{\min(W, C)}$$
#
# The efficiency is $T_{\min}/T$: 1 means no time lost to the handoff at all. A
# printed time **below** $T_{\min}$ cannot be a wall-clock time to serve everything.

# %%
rows = []
for s in cat.servers.values():
    for t_r, ms in s.table1.items():
        w = 1 if s.name == "Iterative" else (s.paper_workers or CLIENTS)  # thread per client: one per connection
        bound = N * t_r / min(w, CLIENTS)
        rows.append(dict(source="Table 1 (2001)", design=s.name, t_r_ms=t_r, workers=w, printed_ms=ms,
                         bound_ms=bound, efficiency=bound / ms))
for sw in cat.paper_sweeps:
    for w, ms in zip(sw.workers, sw.ms):
        bound = N * sw.t_r / min(w, CLIENTS)
        rows.append(dict(source=sw.figure, design=sw.design, t_r_ms=sw.t_r, workers=w, printed_ms=ms,
                         bound_ms=bound, efficiency=bound / ms))
paper = pd.DataFrame(rows)
print(paper.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
impossible = paper[paper.efficiency > 1]
print(f"\nprinted times below the least possible time: {len(impossible)}")
print(impossible[["source", "design", "t_r_ms", "workers", "printed_ms", "bound_ms"]].to_string(index=False))

# %% [markdown]
# ### The percentages
#
# The 2006 paper says the PHT server beats the shared buffer by 12 % at
# $t_r = 250$ ms and 16 % at 500 ms, 14 % on average (Fig. 4).

# %%
sb = cat.servers["SharedBuffer"].table1
pht = cat.servers["ParallelHashTable"].table1
gains = {t: (sb[t] - pht[t]) / sb[t] for t in (250, 500)}
for t, g in gains.items():
    print(f"t_r = {t} ms: ({sb[t]} - {pht[t]}) / {sb[t]} = {g:.2%}")
print(f"mean of the two: {np.mean(list(gains.values())):.2%}")
print("Table 1, 250 ms, fastest first:",
      ", ".join(f"{r.design} {r.printed_ms}" for r in paper[(paper.source == 'Table 1 (2001)') & (paper.t_r_ms == 250)]
                .sort_values("printed_ms").itertuples()))

# %%
# The 2006 paper's Fig. 4 (ms at t_r = 250 / 500), as printed there (JSA 2006, Sec. 6)
fig4_2006 = {"SharedBuffer": {250: 16562, 500: 28960}, "ParallelHashTable": {250: 14562, 500: 24265}}
fig5 = {(sw.design, w): ms for sw in cat.paper_sweeps if sw.figure.startswith("Fig. 5") for w, ms in zip(sw.workers, sw.ms)}
table2 = next(sw for sw in cat.paper_sweeps if sw.figure.startswith("Table 2"))
t250 = paper[(paper.source == "Table 1 (2001)") & (paper.t_r_ms == 250)].set_index("design").printed_ms
t500 = paper[(paper.source == "Table 1 (2001)") & (paper.t_r_ms == 500)].set_index("design").printed_ms
table1 = paper[paper.source == "Table 1 (2001)"].set_index(["design", "t_r_ms"])
sweep = dict(zip(table2.workers, table2.ms))
print("Table 2 (2001), the queue server:", ", ".join(f"W = {w}: {ms} ms" for w, ms in sweep.items()))

# Every finding below, asserted on the numbers printed above:
assert f"{gains[250]:.2%}" == "12.08%" and f"{gains[500]:.2%}" == "16.21%"             # the percentages follow
assert t250["ThreadPerClient"] < t250["Pipes"] and t250["TwoLockQueue"] < t250["Pipes"]  # pipes not first at 250
assert t500["Pipes"] == t500.min()                                                       # ... but first at 500
assert table1.loc[("Iterative", 250), "efficiency"] == 1.0                               # 700000 is the bound
assert [(r.source, r.design, r.t_r_ms) for r in impossible.itertuples()] == [("Table 1 (2001)", "ParallelHashTable", 500)]
assert round(paper[(paper.source == table2.figure) & (paper.workers == 10)].efficiency.iloc[0], 3) == 0.996
assert all(table1.loc[(d, t), "printed_ms"] == ms for d, row in fig4_2006.items() for t, ms in row.items())  # Fig. 4 = Table 1
assert fig5[("SharedBuffer", 50)] == t250["SharedBuffer"] and fig5[("ParallelHashTable", 50)] == t250["ParallelHashTable"]
assert min(sweep, key=sweep.get) == 70 and sweep[80] > sweep[70] and sweep[80] > sweep[60]  # 80 threads is not "best"
print("every finding below holds on these numbers")

# %% [markdown]
# **What the recomputation finds** (each asserted in the cell above).
#
# - The percentages follow: 12.08 % and 16.21 %, mean 14.1 %.
# - "Pipes beat every design" does not follow from Table 1 at $t_r = 250$ ms: thread
#   per client (12552 ms) and the concurrent queue (13048 ms) are faster than pipes
#   (13195 ms); pipes are fastest only at 500 ms, where the queue has no entry.
# - The iterative server's 700000 ms is exactly $N t_r = 2800 \times 250$ ms: the
#   bound itself, not a measurement (efficiency 1.000).
# - **The PHT at $t_r = 500$ ms (24265 ms) is below the least possible time** for 50
#   workers, $2800 \times 500 / 50 = 28000$ ms, and it is the only printed time that is.
#   The tables' columns say "CPU time", but the 2001 paper says what it measured: "the
#   server wall-clock time required to process a fixed number of requests" (ICN 2001,
#   Sec. 5). As a wall-clock time to serve 2800 requests, 24265 ms cannot be; so the
#   500 ms comparison of PHT against the shared buffer (16 %) rests on an impossible
#   number.
# - Every other printed time respects the bound; Table 2's 10-worker point (70312 ms
#   against 70000) runs at efficiency 0.996.
# - **The 2006 paper's Fig. 4 is the 2001 paper's Table 1, digit for digit** (rows 4
#   and 6: 16562 / 28960 and 14562 / 24265), and its Fig. 5 at 50 workers repeats the
#   same 250 ms values, although the 2006 paper describes a newer set-up (J2SE 1.4.0)
#   and says each experiment was repeated 10 times. The 2006 comparison is therefore
#   not a new measurement, and its 14 % carries the impossible 500 ms value with it.
# - **The advice on thread counts does not follow from the papers' own sweep.** The
#   2001 paper says better results come "with 70 to 80 threads", and its abstract and
#   conclusion say "in the range of one hundred"; its Table 2 (printed above) is best at
#   70 and worse at 80 (18203 ms) than at 60 (17047 ms), and stops at 80, so it shows
#   nothing about 100. The 2006 paper's "50–70" matches its Fig. 5, where the best
#   counts are 50 (both designs).

# %%
fig, ax = plt.subplots(figsize=(8, 4.5))
for (figure, design), df in paper[paper.source != "Table 1 (2001)"].groupby(["source", "design"]):
    ax.plot(df.workers, df.printed_ms / 1000, "o-", label=f"{design}, {figure}")
w = np.arange(10, 81)
ax.plot(w, N * 0.25 / np.minimum(w, CLIENTS), "k--", label=r"least possible, $N t_r / W$")
ax.set_xlabel("worker threads W")
ax.set_ylabel("seconds to serve 2800 requests")
ax.set_yscale("log")
ax.set_title(r"The papers' thread sweeps ($t_r$ = 250 ms) against Little's law")
ax.legend()
plt.show()

# %% [markdown]
# ## 2. This kit's servers on loopback
#
# `./lab bench servers` runs the same experiment scaled down: $t_r$ in tens of
# milliseconds instead of 250, the same 140 connections and 2800 requests, real TCP
# sockets on 127.0.0.1, 5 runs per point.

# %%
summary_path, origin = source("servers", "summary.csv", complete_servers)
raw_path = summary_path.with_name("raw.csv")
raw = pd.read_csv(raw_path)
summary = pd.read_csv(summary_path)
print(f"reading {origin}: {paths.shown(raw_path)} ({len(raw)} runs)")
ok = raw[raw.status == "ok"]
assert (ok["lost"] == 0).all() and (ok["duplicated"] == 0).all(), "a run lost or duplicated a request"
print(summary[["design", "t_r_ms", "workers", "slots", "median_s", "bound_s", "efficiency", "paper_scaled_s"]]
      .to_string(index=False, float_format=lambda x: f"{x:.3f}"))

# %%
t_r = summary.t_r_ms.mode()[0]
settings = {sv.name: sv.paper_settings for sv in cat.servers.values()}   # each design at its Table 1 row's W and slots


def at_paper_settings(df):
    keep = [settings.get(r.design) == (r.workers, r.slots) for r in df.itertuples()]
    return df[np.array(keep) & (df.t_r_ms == t_r).to_numpy()]


at = at_paper_settings(summary).sort_values("efficiency")
fig, ax = plt.subplots(figsize=(8, 4))
ax.barh([f"{d} (W={w})" for d, w in zip(at.design, at.workers)], at.efficiency, color="C0")
for y, e in enumerate(at.efficiency):
    ax.text(e, y, f" {e:.2f}", va="center")
ax.axvline(1, color="k", ls="--")
ax.set_xlim(0, 1.15)
ax.set_xlabel(r"efficiency $T_{\min} / T$ (1 = the workers never wait for the handoff)")
ax.set_title(f"Servers at their Table 1 settings, $t_r$ = {t_r} ms ({origin.split(' (')[0]})")
plt.tight_layout()
plt.show()

# %% [markdown]
# ### Are the designs different? Kruskal–Wallis, then pairwise rank tests
#
# Malard & Stewart compare series of wall-clock times with the Kruskal–Wallis $H$
# test: ranks instead of values, so one slow run does not dominate, and no normal
# distribution assumed. Here each design's 5 runs at its Table 1 settings form a series. If
# $H$ rejects "all designs alike", the paper's two claims are tested pairwise with the
# Mann–Whitney $U$ test, with Holm's correction for testing more than one.

# %%
series = {d: g.seconds.to_numpy() for d, g in at_paper_settings(ok).groupby("design")
          if len(g) >= 5 and d != "Iterative"}   # the iterative server serves fewer requests: not comparable
h, p = stats.kruskal(*series.values())
print(f"Kruskal–Wallis over {len(series)} designs, 5 runs each: H = {h:.2f}, p = {p:.2g} "
      f"(critical H at 0.05: {stats.chi2.ppf(0.95, len(series) - 1):.2f})")
if p >= 0.05:  # the pairwise tests are asked only of designs H finds different
    print("H does not reject 'all designs alike' at 0.05: no pairwise test is run")

# The papers' two claims, against the papers' own designs only (not the kit's two extra ones).
paper_designs = {d for d, sv in cat.servers.items() if sv.table1} - {"Iterative", "Pipes"}
claims = [("ParallelHashTable", "SharedBuffer", "the PHT beats the shared buffer (2006)")]
claims += [("Pipes", d, f"pipes beat {d} (2001)") for d in sorted(paper_designs) if d in series]
results = []
for a, b, claim in claims if p < 0.05 else []:
    if a in series and b in series:
        u, pu = stats.mannwhitneyu(series[a], series[b], alternative="two-sided")
        results.append((claim, np.median(series[a]), np.median(series[b]), pu))
order = np.argsort([r[3] for r in results])
adjusted, running = [0.0] * len(results), 0.0
for rank, i in enumerate(order):  # Holm: the k-th smallest p times (m - k), kept monotone
    running = max(running, min(1.0, (len(results) - rank) * results[i][3]))
    adjusted[i] = running
print(f"\n{'claim':45} {'median a':>9} {'median b':>9} {'p':>8} {'p (Holm)':>9}  verdict here")
for (claim, ma, mb, pu), pa in zip(results, adjusted):
    verdict = ("holds" if ma < mb else "reversed") if pa < 0.05 else "not shown"
    print(f"{claim:45} {ma:9.3f} {mb:9.3f} {pu:8.3f} {pa:9.3f}  {verdict}")

# %%
pooled = at[(at.workers == 50) & at.design.map(lambda d: cat.servers[d].threads == "pool")]
print("pre-threaded with 50 workers:", ", ".join(f"{r.design} {r.efficiency:.3f}" for r in pooled.itertuples()))
assert len(pooled) >= 3 and (pooled.efficiency >= 0.85).all(), "a pre-threaded design lost more than 15 % to its handoff"

# %% [markdown]
# Each design runs at its own Table 1 settings (the queue with 70 workers, pipes with 150),
# as in the paper, so "pipes beat X" compares servers, not handoffs. On loopback with
# two cores, the handoff is rarely the bottleneck: every pre-threaded design with 50
# workers reaches at least 0.85 of its bound (asserted; the efficiencies are printed
# above, and the PHT's is the lowest of them in the shipped reference run).
#
# With 5 runs per design the smallest two-sided $p$ a rank test can give is
# $2/\binom{10}{5} = 0.0079$, so after Holm's correction over many pairs only clear,
# complete separations count: "not shown" means 5 runs could not tell, not that the
# designs are equal. Malard & Stewart's critical value is recomputed below too: with
# 20 series ($r - 1 = 19$ degrees of freedom) they reject at $H \ge 30.14$.

# %%
print(f"chi-square 0.95 quantile, 19 degrees of freedom: {stats.chi2.ppf(0.95, 19):.2f}  (printed: 30.14)")
print(f"smallest exact two-sided Mann–Whitney p with 5 + 5 runs: {2 / 252:.4f}")

# %% [markdown]
# ## 3. The bare handoffs (JMH)

# %%
jmh_path, jmh_origin = source("handoffs", "results.csv", complete_handoffs)
jmh = pd.read_csv(jmh_path)
print(f"reading {jmh_origin}: {paths.shown(jmh_path)}")
done = jmh[jmh.status == "ok"]
fig, ax = plt.subplots(figsize=(8, 4.5))
for impl, g in done.groupby("impl"):
    style = "o-" if g.kind.iloc[0] == "kit" else "s:"
    ax.plot(g.workers, g.ratio_to_abq, style, label=impl)
ax.axhline(1, color="k", lw=0.8)
ax.set_yscale("log")
ax.set_xlabel("workers (one acceptor)")
ax.set_ylabel("throughput / ArrayBlockingQueue's, same run")
ax.set_title(f"Hand-off throughput relative to ArrayBlockingQueue ({jmh_origin.split(' (')[0]})")
ax.legend(fontsize=8, ncol=2)
plt.show()
print(done.pivot(index="impl", columns="workers", values="ratio_to_abq").to_string(float_format="%.2f"))

# %%
ratios = done.pivot(index="impl", columns="workers", values="ratio_to_abq")
assert (ratios.loc["ParallelHashTable"] < ratios.loc["MonitorBuffer"]).all() and \
    (ratios.loc["PipeHandoff"] < ratios.loc["MonitorBuffer"]).all(), "the PHT or the pipes out-raced one monitor"
print("the PHT and the pipes are slower than MonitorBuffer at every worker count of this run")

# %% [markdown]
# Read with the papers in mind: a bare handoff race on a few cores rewards the
# cheapest put/take, and there the PHT (two semaphores, a probe and two slot monitors
# per connection) and the pipes (a round trip per connection by design) lose to a
# single monitor at every worker count (asserted). In a server, each handoff is
# followed by $t_r$ of service, and the pre-threaded servers above lose at most 15 %
# to it (asserted there). Why the papers found the PHT ahead is not settled here: a
# conjecture, not tested by the kit, is that many waiters on single-core machines
# contending for one monitor cost more there than on these machines.

# %% [markdown]
# The kit's two fast handoffs run beside them: `FastPht` (the same table with permits
# that take a compare-and-set first) and `FastBuffer` (the shared buffer's ring with no
# lock on a call, each index on its own cache line). The book's chapter "From the
# paper's design to a fast one" builds them step by step, each step verified and
# measured; here, the permits alone leave the table far behind one monitor, and the
# ring passes it.

# %%
fast = ratios.reindex(["MonitorBuffer", "ParallelHashTable", "FastPht", "FastBuffer"]).dropna(how="all")
print(fast.to_string(float_format="%.2f"))
if "FastBuffer" in fast.index:
    assert (fast.loc["FastBuffer"] > fast.loc["MonitorBuffer"]).all(), "FastBuffer lost to one monitor"
    print("FastBuffer moves more connections than MonitorBuffer at every worker count of this run")

# %% [markdown]
# ## 4. What sleeping costs and saves
#
# Throughput is measured with the acceptor putting as fast as it can. A server's
# acceptor does not: connections arrive one at a time, and between them its workers
# have nothing to take. `./lab bench handoffs` then hands ids over one at a time, about
# 100 µs apart (exponential gaps, as independent arrivals have), and records each id's
# time from just before its put to its take (p50, p99, p99.9); then, with nothing to
# take for a few seconds, it counts the workers' own CPU time. A worker that sleeps
# when idle burns nothing then, and pays its wake-up in the latency; one that polls
# (JCTools' queues here, behind a 10 µs park) pays in CPU instead.

# %%
def complete_sleeping(results):
    if (results.status != "ok").any():
        return "a run with failed points"
    n = results.impl.nunique()
    return None if n >= 6 else f"only {n} handoffs (run ./lab bench handoffs --quick)"


sleep_path, sleep_origin = source("handoffs", "sleeping.csv", complete_sleeping)
sleeping = pd.read_csv(sleep_path)
print(f"reading {sleep_origin}: {paths.shown(sleep_path)}")
fig, (lat, idle) = plt.subplots(1, 2, figsize=(12, 4.5))
for impl, g in sleeping[sleeping.status == "ok"].groupby("impl"):
    style = ":" if impl in ("SpmcArrayQueue", "MpmcArrayQueue") else "-"
    lat.plot(g.workers, g.p99_us, style, marker="o", label=impl)
    idle.plot(g.workers, 100 * g.idle_cores, style, marker="o", label=impl)
lat.set_yscale("log")
lat.set_ylabel("p99 put-to-take latency, µs (log)")
idle.set_ylabel("idle workers' CPU, % of one core")
for ax in (lat, idle):
    ax.set_xlabel("workers (one acceptor)")
idle.legend(fontsize=8, ncol=2)
fig.suptitle(f"What sleeping costs and saves ({sleep_origin.split(' (')[0]})")
plt.show()
print(sleeping.pivot(index="impl", columns="workers", values="p99_us").to_string(float_format="%.0f"))

# %%
burn = sleeping.pivot(index="impl", columns="workers", values="idle_cores")
sleepers = ["MonitorBuffer", "FastBuffer", "FastPht", "ArrayBlockingQueue"]
assert (burn.loc[sleepers].max() < burn.loc["SpmcArrayQueue"]).all(), "a sleeping handoff burned more idle CPU than a polled one"
print("every handoff that sleeps when idle burns less CPU idle than JCTools' polled queue, at every worker count")
