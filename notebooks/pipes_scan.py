# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] tags=["notebook-only"]
# # The pipe design's scan: how far does the acceptor look for a free worker?
#
# In the pipe design (Roussev & Wu, ICN 2001, Sec. 3 and 4.2) the acceptor keeps a
# status array $A[1..W]$, one entry per worker, and hands each connection to "the first
# available free worker" it finds by scanning $A$; a worker marks itself free when it
# comes back. Their Theorem 3 bounds the scan: with a fraction $\alpha$ of the workers
# free, it takes at most $1/\alpha$ probes on average — **assuming uniform hashing**,
# i.e. that the free workers sit at random places in $A$.
#
# The kit's `PipeHandoff` scans $A$ from the start, as the paper describes. Does the
# assumption hold for such a scan? This notebook measures the real Java scan
# (`ScanCountingPipes` counts the probes of the unchanged put) and simulates three
# scan policies.

# %%
import os

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

from handofflab.benches.measure import java_csv

W = 16            # workers
T_R = 2000        # service time t_r, µs
UTILISATION = [0.5, 0.8, 0.95]
ITEMS = 4000      # connections per run

runs = []
for rho in UTILISATION:
    gap = round(T_R / (W * rho))  # mean gap between arrivals for this utilisation
    df = java_csv("Theorems", "pipes-scan", W, T_R, gap, ITEMS)
    df["rho"] = rho
    runs.append(df)
java = pd.concat(runs)
# What the runs really were: a parked worker serves a little longer than T_R, and the arrivals keep
# to their schedule on average; the load reached is t_r / (W * gap), both as measured.
loads = java.groupby("rho", as_index=False)[["t_r_us", "gap_us"]].first()
loads["reached"] = loads.t_r_us / (W * loads.gap_us)
print(loads.rename(columns={"rho": "asked"}).to_string(index=False, float_format="%.3f"))
# On a busy machine the parked workers overshoot t_r and the acceptor falls behind its schedule, so the
# loads reached drift from the loads asked (0.66 for 0.5 was seen beside a parallel test run). That is
# no fault: the simulation below runs at the loads reached, and the comparison is per F, whatever load
# produced it. What the comparison needs is enough scans at enough values of F, checked after pooling.
if (abs(loads.reached / loads.rho - 1) >= 0.25).any():
    print("(this machine was busy: the loads reached are not the loads asked; the model below uses the reached ones)")
# Pool the runs: for each number of free workers, the mean scan length over every put that saw it.
java = (java.assign(total=java.puts * java.mean_probes)
            .groupby("free", as_index=False)[["puts", "total", "waited"]].sum())
java["alpha"] = java.free / W
java["mean_probes"] = java.total / java.puts
print(f"{os.cpu_count()} CPU cores; {java.puts.sum():,} puts by the real PipeHandoff, "
      f"each connection taken exactly once; {java.waited.sum():,} found no worker free")

# %% [markdown]
# ## Three scan policies, simulated
#
# A small event simulation with the same $W$, and the $t_r$ and loads the Java runs
# reached (measured, printed above), Poisson arrivals:
#
# - **first free** — scan from $A[1]$ every time (the paper, and the kit's `PipeHandoff`);
# - **rotating** — start each scan one past where the last one stopped;
# - **random start** — start each scan at a random worker.
#
# Under uniform placement the exact mean is $(W+1)/(F+1)$ probes with $F$ workers free,
# under the bound $W/F = 1/\alpha$ (the argument of the PHT's Theorem 2). Whether a
# policy gives uniform placement is what the simulation tests.

# %%
rng = np.random.default_rng(2001)


def simulate(policy, rho, items=40000, w=W, t_r=T_R):  # called with the loads and t_r the Java runs reached
    """One scan per arrival: (workers free when it arrived, probes it made). An arrival that finds
    nobody free waits for the first worker back; it is counted apart (free = 0), not under F = 1."""
    busy_until = np.zeros(w)
    now, last = 0.0, -1
    free_seen, probes_made = [], []
    for gap in rng.exponential(t_r / (w * rho), items):
        now += gap
        free = busy_until <= now
        probes, seen = 0, int(free.sum())
        if not free.any():             # a full scan finds nobody; wait for the first worker back
            probes, now = w, busy_until.min()
            free = busy_until <= now
        start = {"first free": 0, "rotating": last + 1, "random start": rng.integers(w)}[policy]
        order = (start + np.arange(w)) % w
        hit = order[free[order].argmax()]
        probes += int(np.flatnonzero(order == hit)[0]) + 1
        free_seen.append(seen)
        probes_made.append(probes)
        busy_until[hit], last = now + t_r, hit
    return pd.DataFrame({"free": free_seen, "probes": probes_made})


# Every scan of the three loads pooled, then averaged per F: weighted by how often each F
# was seen, as the Java runs are; arrivals that found nobody free (F = 0) are left out.
scans = {p: pd.concat([simulate(p, r.reached, t_r=r.t_r_us) for r in loads.itertuples()]).query("free > 0")
         for p in ("first free", "rotating", "random start")}
sims = {p: df.groupby("free", as_index=False).probes.mean() for p, df in scans.items()}

free = np.arange(1, W + 1)
fig, ax = plt.subplots(figsize=(8, 4.5))
ax.plot(free / W, W / free, "k--", label=r"Theorem 3 bound $1/\alpha$")
ax.plot(free / W, (W + 1) / (free + 1), "-", color="gray", label="uniform placement, exact")
for (name, df), marker in zip(sims.items(), "sv^"):
    ax.plot(df.free / W, df.probes, marker, mfc="none", label=f"simulated: {name}")
seen = java[java.free > 0]
ax.plot(seen.alpha, seen.mean_probes, "o-", color="C3", label="Java PipeHandoff (first free), measured")
ax.set_xlabel(r"fraction of workers free when the connection arrives, $\alpha$")
ax.set_ylabel("probes per hand-off")
ax.set_title(f"The acceptor's scan, W = {W} workers")
ax.legend()
plt.show()

# %% [markdown]
# ## The scan lengths, in numbers

# %%
table = seen[["free", "alpha", "puts", "mean_probes"]].copy()
table["bound"] = W / table.free
table["sim_first_free"] = table.free.map(sims["first free"].set_index("free").probes)
table["sim_rotating"] = table.free.map(sims["rotating"].set_index("free").probes)
table["sim_random"] = table.free.map(sims["random start"].set_index("free").probes)
print(table.to_string(index=False, float_format="%.2f"))
well_sampled = table[table.puts >= 50]
assert well_sampled.free.between(2, W - 1).sum() >= W // 2, \
    f"too few values of F seen 50 times to compare with the bound: {list(well_sampled.free)}"
over = well_sampled[well_sampled.mean_probes > well_sampled.bound]
print(f"\nJava scans longer than the bound 1/alpha at {len(over)} of {len(well_sampled)} loads seen at least 50 times")
java_middle = well_sampled[well_sampled.free.between(2, W - 1)]
assert (java_middle.mean_probes > java_middle.bound).all(), "the Java scan should break 1/alpha at every F from 2 to W-1"
# The simulation is a model of the Java scan, not a replay of it: the real scan runs longer at middling
# F, by an amount that varies from run to run (measured in this kit's runs: up to 17 % at F = 4 over
# 854 scans, so not chance). What the model must get right is the direction and the size of the
# effect: never shorter than it, never longer by a quarter or more, each but for chance. Chance goes on
# both sides: a lightly loaded F is seen some 50 times only (a CI run saw 3.31 probes against 2.55 at
# F = 13 over 58 scans; a quarter over plus four standard errors is 3.81).
spread = well_sampled.free.map(scans["first free"].groupby("free").probes.std())
chance = 4 * spread / np.sqrt(well_sampled.puts)   # four standard errors of a mean of n scans
ratio = well_sampled.mean_probes / well_sampled.sim_first_free
print(f"Java over the first-free simulation: {ratio.min():.2f} to {ratio.max():.2f} "
      f"(median {ratio.median():.2f}) at the {len(well_sampled)} loads seen at least 50 times")
assert (well_sampled.mean_probes >= well_sampled.sim_first_free - chance).all(), \
    "the Java scan should be no shorter than the first-free model, but for chance"
assert (well_sampled.mean_probes < 1.25 * well_sampled.sim_first_free + chance).all(), \
    "the Java scan should be within a quarter of the first-free model, but for chance"
rot, first, rand = sims["rotating"], sims["first free"], sims["random start"]
assert (rot.probes <= W / rot.free * 1.1).all(), "the rotating scan should respect 1/alpha"
middle = first[first.free.between(2, W - 1)]
assert (middle.probes > W / middle.free).all(), "the first-free scan should break 1/alpha at every F from 2 to W-1"
rand_over = rand[rand.probes > W / rand.free]
exact = (W + 1) / (rand.free + 1)
assert (rand.probes > exact).mean() > 0.5, "a random-start scan should run above the uniform-placement curve"
print(f"random start: above 1/alpha at F = {', '.join(map(str, rand_over.free))}; "
      f"above the uniform-placement mean at {(rand.probes > exact).sum()} of {len(rand)} values of F")

# %% [markdown]
# **What this shows.** A scan that always starts at $A[1]$ hands the early workers
# every connection they can take, so at any moment the busy workers crowd the front of
# the array and the free ones sit at the back — exactly what uniform hashing assumes
# away. The first-free scan, simulated and measured in Java, runs past the $1/\alpha$
# bound at every $F$ from 2 to $W-1$ (asserted above, in Java where an $F$ was seen at
# least 50 times). The simulation, run at the service time and loads the Java runs really
# had, reproduces the effect: the Java scan is never shorter than the model and runs at most
# a quarter longer, both but for chance (asserted; the ratios are printed above). It does
# not reproduce every digit: the real scan runs up to about a sixth longer at middling $F$, by
# an amount that changes from run to run. A *random* start does not rescue
# the argument either: a linear scan from a random place is linear probing, and the busy
# workers form runs, so it too sits above the uniform-placement curve and crosses
# $1/\alpha$ at several loads (printed above) — unlike the PHT's take, which probes by
# double hashing. The bound holds here only for the rotating start, whose scans pick up
# where the last one left off. So the paper's Theorem 3 is a theorem about uniform
# placement, not about the scan the paper describes. With 16 workers the difference is
# a handful of probes per connection, each a read of one array entry: microseconds
# against a 250 ms request, too little to explain a difference between the servers'
# times. It is the *argument* that needs the rotating start.
