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
# # How often do two workers meet in one PHT slot? (Theorem 3)
#
# In the PHT, workers do not queue on one lock: each probes the slots on its own.
# Two workers *conflict* when they claim the same slot at the same time; the slot's
# lock then makes one of them wait. Roussev & Wu (JSA 2006, Theorem 3) put the
# probability of a conflict, with $m$ slots and $k$ workers, at
#
# $$P = \sum_{x=1}^{n} \binom{n}{x}\Big(\frac1m\Big)^x\Big(1-\frac1m\Big)^{n-x} = 1-\Big(1-\frac1m\Big)^{n},
# \qquad n = \frac{k}{t_r/t_a},$$
#
# where $t_a$ is the time one retrieval takes, $t_r$ the time a worker then spends
# serving the connection, and $n$ "the average number of threads in the table during
# one retrieval". The model behind it: each of those $n$ threads lands on a slot
# chosen uniformly, independently of the others.
#
# This notebook recomputes the paper's number, simulates the retrieval race, and
# measures conflicts in the real Java PHT.

# %%
import numpy as np
import matplotlib.pyplot as plt
from math import comb

from handofflab.measure import java_csv


def p_conflict(m, n):
    """Theorem 3. For whole n it equals the paper's binomial sum; it also makes sense for fractional n."""
    return 1 - (1 - 1 / m) ** n


def p_binomial_sum(m, n):
    """The paper's sum, literally: x runs over the whole numbers 1..n."""
    return sum(comb(n, x) * (1 / m) ** x * (1 - 1 / m) ** (n - x) for x in range(1, n + 1))


for n in (1, 2, 5, 50):
    assert abs(p_binomial_sum(101, n) - p_conflict(101, n)) < 1e-12

# %% [markdown]
# ## The paper's figure: 0.0019703951
#
# The paper's set-up: $m = 101$ slots, $k = 50$ workers, $t_r = 500$ ms, $t_a = 2$ ms.

# %%
m, k, t_r, t_a = 101, 50, 500.0, 2.0
n = k / (t_r / t_a)
printed = 0.0019703951
print(f"n = k / (t_r / t_a) = {k} / ({t_r:.0f} / {t_a:.0f}) = {n}")
print(f"P = 1 - (1 - 1/m)^n             = {p_conflict(m, n):.10f}")
print(f"the sum over x = 1..n, literally (no whole x in 1..{n}) = {sum([]):.1f}")
print(f"P for n = 2                      = {p_conflict(m, 2):.10f}")
print(f"P for n = 2, divided by 10       = {p_conflict(m, 2) / 10:.10f}")
print(f"printed in the paper             = {printed:.10f}")
assert abs(p_conflict(m, 2) / 10 - printed) < 5e-11

# %% [markdown]
# **The printed number does not follow from the paper's parameters.** With $n = 0.2$
# the formula gives $0.0019880873$; read literally, the sum has no terms and gives 0.
# The printed $0.0019703951$ is, to all ten digits, one tenth of the value for
# $n = 2$, $1 - (100/101)^2 = 0.0197039506$. The likeliest story is $n$ taken as 2
# and a decimal point moved; either way the order of magnitude (about 0.2 %) is right.
#
# ## Fig. 3 recomputed: conflict probability against table size, $k = 50$

# %%
sizes = np.arange(11, 402, 10)
fig, ax = plt.subplots(figsize=(7, 4))
for tr in (250.0, 500.0):
    ax.plot(sizes, p_conflict(sizes, k / (tr / t_a)), label=f"Theorem 3, $t_r$ = {tr:.0f} ms")
ax.plot([m], [printed], "kx", label="printed in the paper (m = 101)")
ax.set_xlabel("slots m")
ax.set_ylabel("P(conflict)")
ax.set_yscale("log")
ax.set_title(f"k = {k} workers, $t_a$ = {t_a:.0f} ms")
ax.legend()
plt.show()

# %% [markdown]
# ## Is it an upper limit? A simulation of the retrieval race
#
# The paper calls $P$ "the upper limit" of the conflict probability. Take its own
# model literally: each worker cycles through a retrieval ($t_a$) and a service
# ($t_r$), the workers' cycles are out of phase at random, and a retrieval touches one
# slot chosen uniformly. A retrieval $[0, t_a]$ is in conflict when another worker's
# retrieval overlaps it in time **and** picks the same slot. Another worker's retrieval
# overlaps when it *starts* anywhere in $(-t_a, t_a)$: a window of $2t_a$ in a cycle
# of $t_a + t_r$, and there are $k - 1$ other workers. So the model's own count is
#
# $$n' = \frac{2(k-1)\,t_a}{t_a + t_r}, \qquad P' = 1 - \Big(1 - \frac1m\Big)^{n'}.$$
#
# The simulation below draws the phases and slots and counts.

# %%
rng = np.random.default_rng(3)


def simulate_race(m, k, t_r, t_a, trials=400_000):
    cycle = t_a + t_r
    # another worker's retrievals start at phase + j*cycle; one overlaps [0, t_a] if it starts in (-t_a, t_a)
    phase = rng.random((trials, k - 1)) * cycle
    overlaps = (phase < t_a) | (phase > cycle - t_a)
    same_slot = rng.integers(0, m, (trials, k - 1)) == rng.integers(0, m, (trials, 1))
    return (overlaps & same_slot).any(axis=1).mean()


rows = []
for tr in (20.0, 50.0, 100.0, 250.0, 500.0):
    n_paper = k / (tr / t_a)
    n_model = 2 * (k - 1) * t_a / (t_a + tr)
    rows.append((tr, p_conflict(m, n_paper), p_conflict(m, n_model), simulate_race(m, k, tr, t_a)))
print(f"m = {m}, k = {k}, t_a = {t_a:.0f} ms")
print(f"{'t_r ms':>7} {'Theorem 3':>10} {'P_prime':>10} {'simulated':>10} {'sim / Thm 3':>11}")
for tr, paper, model, sim in rows:
    print(f"{tr:7.0f} {paper:10.5f} {model:10.5f} {sim:10.5f} {sim / paper:11.2f}")
assert all(abs(sim - model) < 4 * np.sqrt(model / 400_000) + 1e-4 for _, _, model, sim in rows)

# %% [markdown]
# The simulation agrees with $P'$, and **$P'$ is about twice Theorem 3's value**: the
# theorem counts the threads that arrive *during* a retrieval, but a thread that
# arrived shortly *before* it and is still probing collides just as well. Under the
# paper's own assumptions, Theorem 3 is an estimate that is low by about a factor of 2,
# not an upper limit. For the paper's set-up, $P' \approx 0.0039$ instead of $0.0020$:
# still small, so the paper's conclusion (conflicts are rare and cheap) stands.
#
# ## Measured: the real Java PHT
#
# `ProbeCountingPht` marks a take as *in conflict* when another worker is inside the
# same slot's claim while it is: either it found one there, or one came in before it
# left. $k$ workers take and serve for $t_r$ (parked); the acceptor keeps the table
# full. $t_a$ is measured too (first probe to successful claim), so both formulas can be
# evaluated with this machine's real retrieval time.

# %%
import os

K, SLOTS, ITEMS = 8, 101, 20000
measured = []
for tr_us in (20, 100, 400):
    row = java_csv("Theorems", "pht-conflicts", SLOTS, K, tr_us, ITEMS).iloc[0]
    ta_us = row.mean_t_a_ns / 1000
    measured.append(dict(t_r_us=tr_us, t_a_us=ta_us, takes=int(row.takes), conflicted=int(row.conflicted),
                         rate=row.conflicted / row.takes,
                         theorem3=p_conflict(SLOTS, K / (tr_us / ta_us)),
                         model=p_conflict(SLOTS, 2 * (K - 1) * ta_us / (ta_us + tr_us))))
print(f"{os.cpu_count()} CPU cores, m = {SLOTS}, k = {K}; every run took each of its {ITEMS} connections exactly once")
print(f"{'t_r µs':>7} {'t_a µs':>7} {'takes':>7} {'in conflict':>11} {'rate':>8} {'Theorem 3':>10} {'P_prime':>8}")
for r in measured:
    print(f"{r['t_r_us']:7d} {r['t_a_us']:7.2f} {r['takes']:7d} {r['conflicted']:11d} {r['rate']:8.5f} "
          f"{r['theorem3']:10.5f} {r['model']:8.5f}")

fig, ax = plt.subplots(figsize=(7, 4))
x = [r["t_r_us"] for r in measured]
ax.semilogy(x, [r["theorem3"] for r in measured], "k--", label="Theorem 3 (measured $t_a$)")
ax.semilogy(x, [r["model"] for r in measured], ":", color="gray", label="$P'$ (measured $t_a$)")
ax.semilogy(x, [max(r["rate"], 1 / r["takes"]) for r in measured], "o-", label="Java PHT, measured")
ax.set_xlabel("service time $t_r$ (µs)")
ax.set_ylabel("fraction of takes in conflict")
ax.set_title(f"Java PHT, m = {SLOTS}, k = {K}")
ax.legend()
plt.show()

# %% [markdown]
# **Reading the measurement.** Both formulas assume that all $k$ workers probe truly
# at once. A machine with fewer cores than workers runs at most as many probing
# workers as it has cores, and a worker that holds a core through its short
# retrieval rarely shares a slot with the one other worker running, so here the
# measured rate is expected far *below* both formulas. The cell below says how far,
# on this run; with 16 cores (`./lab` on a larger machine) the gap should narrow.

# %%
for r in measured:
    seen = "no conflict" if r["conflicted"] == 0 else f"{r['conflicted']} conflicts"
    print(f"t_r = {r['t_r_us']} µs: {seen} in {r['takes']} takes; Theorem 3 predicts about "
          f"{r['theorem3'] * r['takes']:.0f}, P' about {r['model'] * r['takes']:.0f}")
print(f"all measured rates below Theorem 3: {all(r['rate'] <= r['theorem3'] for r in measured)}")
