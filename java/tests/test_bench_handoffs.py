"""`./lab bench handoffs`: a --quick run yields well-formed CSV, summary and plot, and the
benchmark's own exactly-once guard turns a lossy handoff into a failed point, kept and marked,
instead of a number. Nothing here depends on how fast the machine is."""
import subprocess

import pandas as pd
import pytest

from handofflab.benches import bench_handoffs
from handofflab.ground import catalog, paths

# one worker, so the module's quick run is measured once
pytestmark = pytest.mark.xdist_group("bench-handoffs")


# the tests that read the module's quick run: one unit of the full tier, so CI's slice runs them together
QUICK_RUN = pytest.mark.full("a quick JMH run of every handoff, shared by the tests that read it",
                             seconds=55, unit="bench-handoffs-quick")


@pytest.fixture(scope="module")
def quick():
    out = bench_handoffs.run("quick", ["SharedBuffer", "SpmcArrayQueue"], [1, 2])
    return out, pd.read_csv(out / "results.csv")


@QUICK_RUN
def test_every_point_is_measured_beside_the_baseline(quick):
    _, df = quick
    assert sorted(df["impl"].unique()) == ["ArrayBlockingQueue", "MonitorBuffer", "SpmcArrayQueue"]
    assert sorted(df["workers"].unique()) == [1, 2]
    assert (df["status"] == "ok").all() and (df["items_per_us"] > 0).all()
    assert (df["samples"] == bench_handoffs.QUICK.iterations).all()
    assert (df["min"] <= df["items_per_us"]).all() and (df["items_per_us"] <= df["max"]).all()
    base = df[df["impl"] == "ArrayBlockingQueue"]
    assert (base["ratio_to_abq"] == 1.0).all()
    for _, r in df.iterrows():  # each ratio is against the baseline at the same N, from this run
        abq = base[base["workers"] == r["workers"]]["items_per_us"].iloc[0]
        assert r["ratio_to_abq"] == pytest.approx(r["items_per_us"] / abq)
    assert set(df[df["impl"] == "MonitorBuffer"]["handoff"]) == {"SharedBuffer"}  # the catalog's name
    # each ratio's interval: the two scores' relative 99.9 % errors in quadrature (issue 50)
    for _, r in df[df["impl"] != "ArrayBlockingQueue"].iterrows():
        abq = base[base["workers"] == r["workers"]].iloc[0]
        want = 100 * ((r["error_99"] / r["items_per_us"]) ** 2 + (abq["error_99"] / abq["items_per_us"]) ** 2) ** 0.5
        assert r["ratio_error_pct"] == pytest.approx(want)


@QUICK_RUN
def test_what_sleeping_costs_and_saves_is_measured_in_the_same_run(quick):
    """The same handoffs and widths, each id's put-to-take latency with paced arrivals and the idle workers' CPU;
    the instrument tells a sleeper from a poller: MonitorBuffer's workers wait() and burn nothing idle, JCTools'
    queue is polled (a 10 µs park between looks) and burns some, whatever the machine's load."""
    out, df = quick
    sl = pd.read_csv(out / "sleeping.csv")
    assert sorted(sl["impl"].unique()) == sorted(df["impl"].unique()) and sorted(sl["workers"].unique()) == [1, 2]
    assert (sl["status"] == "ok").all() and (sl["items"] == bench_handoffs.QUICK.items).all()
    assert ((0 < sl["p50_us"]) & (sl["p50_us"] <= sl["p99_us"]) & (sl["p99_us"] <= sl["p999_us"])
            & (sl["p999_us"] <= sl["max_us"])).all(), sl
    idle = sl.set_index(["impl", "workers"])["idle_cores"]
    for n in (1, 2):
        assert idle["MonitorBuffer", n] < 0.01 < idle["SpmcArrayQueue", n], idle
    md = (out / "summary.md").read_text()
    assert "What sleeping costs and saves" in md and "| SharedBuffer (`MonitorBuffer`) | kit |" in md.split("sleeping")[1]
    assert (out / "sleeping.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_sleeping_table_gives_percentiles_the_baselines_ratio_and_idle_cpu():
    import pandas as pd_

    df = pd_.DataFrame([dict(impl=i, kind=k, handoff=h) for i, k, h in (
        ("ArrayBlockingQueue", "JDK", ""), ("FastBuffer", "kit", "FastBuffer"), ("MailboxNoBusy", "buggy", ""))])
    sl = pd_.DataFrame([
        dict(impl="ArrayBlockingQueue", workers=1, status="ok", items=100, gap_us=100.0, p50_us=10.0, p99_us=200.0,
             p999_us=1500.0, max_us=2000.0, idle_cores=0.0, detail=None),
        dict(impl="FastBuffer", workers=1, status="ok", items=100, gap_us=100.0, p50_us=5.0, p99_us=50.0,
             p999_us=80.0, max_us=90.0, idle_cores=0.0004, detail=None),
        dict(impl="MailboxNoBusy", workers=1, status="failed", items=100, gap_us=100.0, p50_us=None, p99_us=None,
             p999_us=None, max_us=None, idle_cores=None, detail="MailboxNoBusy lost ids or deadlocked")])
    md = "\n".join(bench_handoffs.sleeping_lines(sl, df))
    assert "| `ArrayBlockingQueue` | JDK | 10 / 200 / 1,500; idle 0 % |" in md
    assert "| FastBuffer (`FastBuffer`) | kit | 5 / 50 / 80 [×0.25]; idle 0.04 % |" in md
    assert "| `MailboxNoBusy` | buggy | failed |" in md and "MailboxNoBusy with 1 worker(s) failed: MailboxNoBusy lost" in md


def test_the_summary_says_how_wide_each_ratio_is(monkeypatch, tmp_path):
    monkeypatch.setattr(bench_handoffs, "OUT", tmp_path)
    rows = [dict(impl=i, kind=k, handoff="", workers=1, status="ok", items_per_us=v, error_99=e, samples=3, min=v, max=v)
            for i, k, v, e in (("ArrayBlockingQueue", "JDK", 10.0, 0.5), ("SpmcArrayQueue", "JCTools", 20.0, 1.0),
                               ("LinkedTransferQueue", "JDK", 5.0, 2.5))]
    df = bench_handoffs.summarize(rows)
    assert df.set_index("impl")["ratio_error_pct"].round(2).to_dict() == {
        "ArrayBlockingQueue": 5.0, "SpmcArrayQueue": 7.07, "LinkedTransferQueue": 50.25}
    md = (bench_handoffs.OUT / "summary.md").read_text()
    assert "[×2.00 ±7 %]" in md and "[×0.50 ±50 %]" in md and "**1 of 2 ratios are wider than ±10 %**" in md


def test_the_summary_holds_each_fast_handoff_to_its_bar(monkeypatch, tmp_path):
    """Issue 87's bars, read off the same run: FastBuffer against JCTools' SpmcArrayQueue (0.8), FastPht against
    ArrayBlockingQueue (1.0), with the quotient's interval; a width where either point failed is left out."""
    monkeypatch.setattr(bench_handoffs, "OUT", tmp_path)
    rows = [dict(impl=i, kind="", handoff="", workers=n, status=st, items_per_us=v, error_99=e, samples=3, min=v,
                 max=v) for i, n, st, v, e in (
        ("ArrayBlockingQueue", 1, "ok", 10.0, 0.3), ("SpmcArrayQueue", 1, "ok", 30.0, 0.0),
        ("FastBuffer", 1, "ok", 27.0, 0.0), ("FastPht", 1, "ok", 9.0, 0.4),
        ("ArrayBlockingQueue", 2, "ok", 10.0, 0.0), ("SpmcArrayQueue", 2, "ok", 30.0, 0.0),
        ("FastBuffer", 2, "failed", 0.0, 0.0), ("FastPht", 2, "ok", 10.5, 0.0))]
    bench_handoffs.summarize(rows)
    md = (bench_handoffs.OUT / "summary.md").read_text()
    assert "- `FastBuffer` / `SpmcArrayQueue` (the bar: ×0.8): 1: ×0.90 ±0 % ≥ 0.8\n" in md
    assert "- `FastPht` / `ArrayBlockingQueue` (the bar: ×1.0): 1: ×0.90 ±5 % < 1.0; 2: ×1.05 ±0 % ≥ 1.0" in md


@QUICK_RUN
def test_summary_and_plot_are_written(quick):
    out, _ = quick
    data = (out / "throughput.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    md = (out / "summary.md").read_text()
    assert "| SharedBuffer (`MonitorBuffer`) | kit |" in md and not md.startswith("**PARTIAL")


@pytest.mark.full("a JMH run of a lossy handoff", seconds=21)
def test_a_lossy_handoff_fails_its_point_and_the_run_is_marked_partial():
    run = subprocess.run([str(paths.ROOT / "lab"), "bench", "handoffs", "--impl", "MailboxNoBusy", "--workers", "2"],
                         capture_output=True, text=True, timeout=300)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "MailboxNoBusy lost ids or deadlocked" in out
    df = pd.read_csv(bench_handoffs.OUT / "results.csv")
    assert df.set_index("impl")["status"].to_dict() == {"ArrayBlockingQueue": "ok", "MailboxNoBusy": "failed"}
    assert (bench_handoffs.OUT / "summary.md").read_text().startswith("**PARTIAL")


def test_the_kit_handoffs_come_from_the_catalog():
    kit = bench_handoffs.kit_handoffs(catalog.load())
    assert kit == {"MonitorBuffer": "SharedBuffer", "TwoLockQueue": "TwoLockQueue",
                   "ParallelHashTable": "ParallelHashTable", "FastPht": "FastPht", "FastBuffer": "FastBuffer",
                   "PipeHandoff": "Pipes"}


@pytest.mark.parametrize("args, says", [
    (["--impl", "Fastest"], "unknown handoff or queue 'Fastest'"),
    (["--workers", "0"], "--workers must all be at least 1"),
    (["--workers", "two"], "--workers takes numbers separated by commas"),
])
def test_bad_input_is_named(args, says):
    run = subprocess.run([str(paths.ROOT / "lab"), "bench", "handoffs", *args], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and says in run.stdout + run.stderr
