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
# # The shared buffer, measured
#
# This notebook runs the kit's real `MonitorBuffer` (java/handoffs) in a small
# Java program (`handofflab.benchmarks.BufferOccupancy`): one acceptor puts
# connection ids as fast as it can; each of $W$ workers takes one and serves it
# for a fixed service time $t_s$ (parked, like the papers' simulated work $t_r$).
# Before every put, the acceptor records how many slots are full.
#
# Two questions, both about the design of Roussev & Wu's pre-threaded server:
#
# 1. **Throughput.** With $W$ workers each busy $t_s$ per connection, no server
#    can finish more than $W / t_s$ connections per second (Little's law:
#    $N$ connections need at least $N t_s / W$ seconds). How close does the buffer come?
# 2. **Occupancy.** With few workers the acceptor outruns them and the buffer
#    sits full (the acceptor waits in `put`); with many, it drains.

# %%
import os
import subprocess
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from handofflab.java import javabuild

CAPACITY = 8          # slots
SERVICE_US = 200      # t_s per connection, microseconds
ITEMS = 4000          # connections per run
WORKERS = [1, 2, 4, 8, 16, 32, 64]

RUNS = 3              # load on the machine only slows a run: per W, the fastest of these is the nearest to the handoff

throughputs, occupancies = [], []
for r in range(RUNS):
    with tempfile.TemporaryDirectory(prefix="buffer-occupancy-") as folder:  # removed once read
        out = Path(folder)
        run = subprocess.run(
            ["java", "-cp", javabuild.classpath("benchmarks"), "handofflab.benchmarks.BufferOccupancy",
             str(out), str(CAPACITY), str(SERVICE_US), str(ITEMS), ",".join(map(str, WORKERS))],
            capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr  # the program exits 1 if any id was not taken exactly once
        throughputs.append(pd.read_csv(out / "throughput.csv").assign(run=r))
        occupancies.append(pd.read_csv(out / "occupancy.csv").assign(run=r))
every = pd.concat(throughputs, ignore_index=True)
every["bound_per_s"] = every.workers / (every.served_us * 1e-6)          # the bound and the efficiency: next section
every["efficiency"] = every.throughput_per_s / every.bound_per_s
fastest = every.loc[every.efficiency.groupby(every.workers).idxmax(), ["workers", "run"]]
throughput = every.merge(fastest, on=["workers", "run"]).sort_values("workers").reset_index(drop=True)
occupancy = pd.concat(occupancies, ignore_index=True).merge(fastest, on=["workers", "run"])
print(f"{os.cpu_count()} CPU cores; every one of {RUNS} runs delivered each of its {ITEMS} ids exactly once; "
      f"below, per W, the run nearest its bound (load only slows a run)")

# %% [markdown]
# ## Throughput against the bound
#
# The bound $W/t_s$ assumes a worker is busy exactly $t_s$. The operating system
# wakes a parked thread late, so each worker also measures how long its services
# really lasted, and the bound uses that: $W / t_s^{\text{measured}}$. The efficiency
# is the throughput over that bound: the share of the workers' time the handoff did
# not waste.

# %%
print(f"services lasted {throughput.served_us.min():.0f}–{throughput.served_us.max():.0f} µs (nominal {SERVICE_US} µs)")
print(throughput[["workers", "served_us", "throughput_per_s", "bound_per_s", "efficiency", "mean_occupancy",
                  "full_fraction"]].to_string(index=False, float_format=lambda x: f"{x:,.2f}"))
assert (throughput.served_us >= SERVICE_US).all(), "a parked worker served in less than the nominal time?"
assert (throughput.throughput_per_s <= throughput.bound_per_s * 1.05).all(), "faster than Little's law allows?"

fig, ax = plt.subplots(figsize=(7, 4))
ax.loglog(throughput.workers, throughput.workers / (SERVICE_US * 1e-6), ":", color="gray", label="$W/t_s$, nominal $t_s$")
ax.loglog(throughput.workers, throughput.bound_per_s, "k--", label="bound $W/t_s$, measured $t_s$")
ax.loglog(throughput.workers, throughput.throughput_per_s, "o-", label="MonitorBuffer, measured")
ax.set_xlabel("workers W")
ax.set_ylabel("connections per second")
ax.set_title(f"Shared buffer, {CAPACITY} slots, $t_s$ = {SERVICE_US} µs nominal")
ax.legend()
plt.show()

# %% [markdown]
# ## Occupancy
#
# The fraction of puts that found $k$ slots already full. A bar at $k = $
# capacity means the acceptor had to wait for room.

# %%
fig, ax = plt.subplots(figsize=(7, 4))
for w in WORKERS[::2]:
    sub = occupancy[occupancy.workers == w]
    ax.plot(sub.occupancy, sub.fraction, "o-", label=f"W = {w}")
ax.set_xlabel("slots full before a put")
ax.set_ylabel("fraction of puts")
ax.set_title("Where the buffer sits")
ax.legend()
plt.show()

# %% [markdown]
# ## Reading the plots
#
# With few workers, throughput grows with $W$ in step with the bound. It cannot keep
# up for ever: every `put` ends in `notifyAll()`, which wakes *every* waiting worker;
# all but one find nothing to take and wait again. With many workers that
# "thundering herd" costs more than the extra workers bring. The cell below reads
# both off this run's data and asserts them.

# %%
peak = throughput.loc[throughput.throughput_per_s.idxmax()]
last = throughput.iloc[-1]
few = throughput[throughput.workers <= 8]
print(f"W ≤ 8: efficiency {few.efficiency.min():.2f}–{few.efficiency.max():.2f}")
print(f"peak: {peak.throughput_per_s:,.0f} connections/s at W = {peak.workers:.0f} "
      f"(efficiency {peak.efficiency:.2f}); at W = {last.workers:.0f}: {last.throughput_per_s:,.0f}/s "
      f"(efficiency {last.efficiency:.2f})")
print(f"buffer full before a put: {throughput.full_fraction.iloc[0]:.0%} of puts at W = 1, "
      f"{throughput.full_fraction.iloc[-1]:.0%} at W = {last.workers:.0f}")
assert (few.efficiency >= 0.8).all(), "with few workers the buffer should keep pace with the bound"
# The herd wastes the workers' time: at the largest W the efficiency is under half the best. Where the throughput
# peaks is not asserted: beside other load, more threads win a larger share of the cores (a busy CI run peaked at W = 64).
assert last.efficiency < 0.5 * throughput.efficiency.max(), "no thundering herd at the largest W?"
# With one worker the buffer refills as soon as the acceptor wakes; a put finds it not full only when the acceptor
# woke later than one service time t_s, so load lowers this fraction (99 % on a quiet machine, 88 % in a CI run with
# the Java tests beside it). The bar is three in four: far above the many-worker fraction, and no scheduler's luck.
assert throughput.full_fraction.iloc[0] > 0.75 and throughput.full_fraction.iloc[-1] < 0.5 * throughput.full_fraction.iloc[0]

# %% [markdown]
# Up to 8 workers the buffer keeps pace with the bound (efficiency 0.8 or more in
# the nearest of three runs, asserted); with many more, the herd wastes the workers' time (at the largest $W$ the
# efficiency is less than half the best, asserted), and past a peak more workers lower the throughput. Where that
# peak lies depends on the machine's other load, so it is printed, not asserted. The buffer is full before most puts
# with one worker (almost every one on a quiet machine; three in four or more, asserted) and drains as workers are added (asserted): the acceptor
# waits for the workers, not the other way round, until the herd of woken workers
# slows everyone. Roussev & Wu also found an optimum in the number of workers (their
# Table 2 and Fig. 5 sweep it); theirs (50–70 workers at $t_r$ = 250 ms) is far from
# this one because the ratio of service time to handoff cost is about a thousand
# times larger there. This notebook does not vary the number of slots, so it says
# nothing about them.
