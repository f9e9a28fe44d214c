"""`./lab bench dht`: a short real run of Malard & Stewart's micro-benchmarks on the kit's distributed
table (separate JVMs on loopback), every pattern beside the raw put from the same run, and the
randomised study's tests read right. The real measurement (`./lab bench dht`, minutes) is the
benchmark, not a test."""
import os
from pathlib import Path

import pandas as pd
import pytest

from handofflab.benches import bench_dht, bench_dht_results, dht
from handofflab.ground.console import LabError


@pytest.mark.full("a quick run of bench dht: three JVMs per pattern", seconds=52)
def test_a_short_run_measures_every_pattern_beside_the_raw_put(monkeypatch, tmp_path):
    monkeypatch.setattr(bench_dht, "QUICK", bench_dht.Plan(values=300, reps=2, q=4, study_runs=6, study_ls=(1, 100),
                                                              matrices=("impcol_b", "jpwh_991"), processors=(2, 4)))
    monkeypatch.setattr(bench_dht, "IMPLS", ("dht", "raw-put"))  # Hazelcast's cluster: its own test below
    # a MatrixMarket file for one of the two matrices (a made-up one: the real files cannot be fetched here)
    entries = [(i, i) for i in range(1, 60)] + [(i, (7 * i) % 59 + 1) for i in range(1, 42)]
    (tmp_path / "impcol_b.mtx").write_text("%%MatrixMarket matrix coordinate real general\n59 59 100\n"
                                           + "".join(f"{r} {c} {r / c:.3f}\n" for r, c in entries))
    out = bench_dht.run("quick", matrices=tmp_path)
    raw = pd.read_csv(out / "raw.csv")
    p = bench_dht.processes()
    pat = raw[raw.part == "patterns"]
    assert set(pat.pattern) == set(dht.PATTERNS) and set(pat.impl) == {"dht", "raw-put"} and set(pat.q) == {0, 4}
    # every process of every run reported; the table's runs all three phases, the raw put its inserts only
    # the kit's table in three cells, one factor at a time: q on and off with one pool, then the pool shrunk
    assert set(zip(pat[pat.impl == "dht"].q, pat[pat.impl == "dht"].buffers)) == {(4, 8), (0, 8), (0, 4)}
    assert len(pat[pat.impl == "dht"]) == len(dht.PATTERNS) * 3 * 2 * p * 3
    # the raw put twice: waited for every 100 puts (the baseline) and after each, as the paper's loop
    raw_put = pat[pat.impl == "raw-put"]
    assert len(raw_put) == len(dht.PATTERNS) * 2 * 2 * p and set(raw_put.phase) == {"insert"} and set(raw_put.L) == {1, 100}
    assert (raw[raw["values"] > 0].completion_us > 0).all()
    summary = pd.read_csv(out / "summary.csv")
    assert (summary[summary.impl == "raw-put"].ratio_to_raw_put == 1).all()
    kit = summary[summary.impl != "raw-put"]
    assert set(kit.impl) == {"dht q=4 pool=8", "dht q=0 pool=8", "dht q=0 pool=4", "raw-put L=1"}
    assert (kit.ratio_to_raw_put == kit.completion_us / kit.raw_put_us).all()
    study = raw[raw.part == "study"]
    assert set(study.q) == {0, 4} and set(study.L) == {1, 100} and study.n.between(1, 8).all()
    tests = pd.read_csv(out / "tests.csv")
    assert len(tests) > 0 and tests.p.between(0, 1).all() and set(tests.kind) <= {"init", "completion", "barrier"}
    # the scatter: each matrix through both implementations in every run, with Table 1's shape
    sc = pd.read_csv(out / "scatter_raw.csv")
    assert len(sc) == 2 * 2 * 2 and set(sc.impl) == {"dht", "send-recv"} and (sc.wrong == 0).all()
    assert set(zip(sc.matrix, sc.source, sc.rows, sc.nonzeros)) == {("impcol_b", "MatrixMarket", 59, 100),
                                                                   ("jpwh_991", "made by the kit", 991, 6027)}
    assert (sc.barrier_us_per_nonzero > 0).all() and (sc.barrier_us_per_nonzero >= sc.completion_us_per_nonzero).all()
    table = pd.read_csv(out / "scatter.csv")
    assert list(table.matrix) == ["jpwh_991", "impcol_b"] and (table.runs == 2).all()
    assert (table.ratio == table["dht"] / table["send-recv"]).all()
    assert table.paper_ratio.round(3).tolist() == [round(39.5261 / 27.4571, 3), round(53.6058 / 20.1987, 3)]
    for png in ("dht_patterns.png", "dht_variability.png", "dht_scatter.png", "dht_processors.png"):
        assert (out / png).stat().st_size > 10_000
    # the processor axis: every pattern on 2 and 4 processes, each process's line read; p above the cores labelled
    axis = raw[raw.part == "processors"]
    assert {(pp, len(g)) for pp, g in axis.groupby("p")} == {(2, len(dht.PATTERNS) * 2 * 2 * 3), (4, len(dht.PATTERNS) * 2 * 4 * 3)}
    by_p = pd.read_csv(out / "processors.csv")
    assert set(by_p.p) == {2, 4} and (by_p.oversubscribed == (by_p.p > os.cpu_count())).all()
    assert (by_p.barrier_us > 0).all()
    # where each target's threads spent the run: shares of the span from its first request to its last
    threads = pd.read_csv(out / "threads.csv")
    assert len(threads) == len(dht.PATTERNS) * 3
    kit = pat[(pat.impl == "dht") & (pat.phase == "insert") & (pat.target_requests > 10)]   # in N-1: process 0 alone
    accounted = kit.service_table_share + kit.service_queue_share + kit.service_idle_share
    assert accounted.between(0.5, 1.05).all(), kit    # each service thread's time: table, queue or idle
    assert (threads[list(bench_dht_results.SHARES)] >= 0).all().all()
    text = (out / "summary.md").read_text()
    assert "| pattern | phase | queue alone | pool alone |" in text and "| limits |" in text
    assert "The processor axis" in text and "| n-1 | 4 |" in text and "µs per value per added process" in text
    assert "ratio to raw put" in text and "| impcol_b | MatrixMarket | 59 | 100 |" in text
    assert "| jpwh_991 | made by the kit | 991 | 6027 |" in text


@pytest.mark.full("a Hazelcast cluster of separate JVMs", seconds=15)
def test_the_same_workload_runs_on_a_hazelcast_cluster_of_separate_processes():
    """The baseline store: p members on loopback, each value stored, found and deleted once (checked by
    each member); N-1, whose keys all carry one partition key so that one member holds them."""
    rows = dht.run(p=3, pattern="n-1", values=400, n=2, blocking=20, impl="hazelcast")
    assert [r["id"] for r in rows] == [0, 1, 2] and all(r["impl"] == "hazelcast" and r["wrong"] == 0 for r in rows)
    assert all(len(r["completion_us_per_value"]) == 3 and min(r["completion_us_per_value"]) > 0 for r in rows)


def test_a_process_that_found_a_wrong_value_is_named_with_what_it_found():
    line = '{"id": 1, "wrong": 2, "first_wrong": "find of key 7 returned other values than inserted"}'
    assert dht._wrong(line) == "2 value(s) lost, duplicated or changed, first: find of key 7 returned other values than inserted"
    assert dht._wrong("no json").startswith("it printed no result")


def test_the_study_draws_every_blocking_factor_equally_often_in_random_order():
    """Kruskal-Wallis needs enough runs in every group: the paper's random draw left L = 130 with 4 of 200."""
    design = bench_dht.study_design(bench_dht.FULL)
    for q in (bench_dht.FULL.q, 0):
        ls = [blocking for dq, blocking, _ in design if dq == q]
        assert len(ls) == bench_dht.FULL.study_runs
        assert {ls.count(x) for x in bench_dht.FULL.study_ls} == {5}      # 105 runs, 21 values of L
        assert ls != sorted(ls)
    assert {n for _, _, n in design} == set(range(1, 9))
    assert design == bench_dht.study_design(bench_dht.FULL)                # the same draw every time


def test_bad_options_are_named():
    with pytest.raises(LabError, match="--reps must be at least 2"):
        bench_dht.run("quick", reps=1)
    with pytest.raises(LabError, match="no pattern 'n-2'"):
        dht.run(pattern="n-2")
    with pytest.raises(LabError, match="no implementation 'redis'"):
        dht.run(impl="redis")
    with pytest.raises(LabError, match="no matrix 'lena' in the paper's Table 1"):
        dht.scatter("lena")
    with pytest.raises(LabError, match="no scatter implementation 'mpi'"):
        dht.scatter("impcol_b", impl="mpi")


@pytest.mark.parametrize("impl", dht.SCATTER_IMPLS)
def test_a_scatter_whose_table_fills_names_the_process_and_the_remedy(impl):
    """Process 0 cannot hold the matrix: it says so and how to fix it, and the others end at once saying why."""
    with pytest.raises(LabError, match=r"process 0 exit 3: .*table is full after \d+ values; start it with a larger --max-slots"
                                       r"; process 1 exit 3: .*process 0 (ended|closed)"):
        dht._processes(3, "handofflab.dht.ScatterMain", dht.javabuild.classpath("dht"),
                       ["--rows", "2000", "--nonzeros", "7996", "--impl", impl, "--max-slots", "64"], 60, "a scatter")


def test_a_stopped_run_keeps_its_points_and_leaves_no_jvm(tmp_path):
    """Issue 49: SIGTERM half way through `./lab bench dht` (as a scheduler or Ctrl-C's neighbour sends it) ends
    every JVM the benchmark started, keeps each point it finished in raw.csv, and marks summary.md PARTIAL.
    (Before: SIGTERM left the JVMs running under init, and nothing was written until the end.)"""
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "HANDOFFLAB_RESULTS": str(tmp_path)}
    bench = subprocess.Popen([sys.executable, "-m", "handofflab", "bench", "dht", "--quick"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    raw = tmp_path / "bench" / "dht" / "raw.csv"

    def children() -> set[int]:
        found = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == bench.pid:
                found.add(int(stat.parent.name))
        return found

    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not (raw.exists() and raw.read_text().count("\n") > 1):
            time.sleep(0.5)
        assert raw.exists(), "no point finished in 300 s"
        jvms = set()
        while time.monotonic() < deadline and not jvms:  # the next point's JVMs are up
            jvms = children()
            time.sleep(0.1)
        bench.send_signal(signal.SIGTERM)
        out, _ = bench.communicate(timeout=60)
    finally:
        bench.kill()
    assert bench.returncode == 2 and "ended after" in out and "stopped" in out, out[-2000:]
    assert jvms and not any(Path(f"/proc/{pid}").exists() and "java" in Path(f"/proc/{pid}/cmdline").read_text()
                            for pid in jvms), f"JVMs left running: {jvms}"
    kept = pd.read_csv(raw)
    assert len(kept) >= 1 and (kept.completion_us > 0).all()
    assert (tmp_path / "bench" / "dht" / "summary.md").read_text().startswith("**PARTIAL")


def test_a_bad_matrix_file_is_named_before_any_measurement(tmp_path, monkeypatch):
    monkeypatch.setattr(dht, "run", lambda *a, **k: pytest.fail("a point was measured before the inputs were read"))
    (tmp_path / "impcol_b.mtx").write_text("not a matrix\n")
    with pytest.raises(LabError, match="impcol_b.mtx is no MatrixMarket coordinate file"):
        bench_dht.run("quick", matrices=tmp_path)
    (tmp_path / "impcol_b.mtx").write_text("%%MatrixMarket matrix coordinate real general\n59 fifty-nine 100\n")
    with pytest.raises(LabError, match="the size line should be 'ROWS COLUMNS ENTRIES'"):
        bench_dht.run("quick", matrices=tmp_path)


def test_holm_adjusts_as_by_hand_and_never_lowers_a_p():
    """Holm's step-down adjustment, checked by hand: sorted p (0.01, 0.02, 0.03, 0.5) times 4, 3, 2, 1, kept
    monotone: 0.04, 0.06, 0.06, 0.5; never below the raw p, never above 1."""
    ps = [0.03, 0.5, 0.01, 0.02]
    adjusted = bench_dht_results.holm(ps)
    assert [round(x, 10) for x in adjusted] == [0.06, 0.5, 0.04, 0.06]
    assert all(a >= p for a, p in zip(adjusted, ps)) and bench_dht_results.holm([0.9, 0.8]) == [1.0, 1.0]
    assert bench_dht_results.holm([]) == []
