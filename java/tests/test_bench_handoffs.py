"""`./lab bench handoffs`: a --quick run yields well-formed CSV, summary and plot, and the
benchmark's own exactly-once guard turns a lossy handoff into a failed point, kept and marked,
instead of a number. Nothing here depends on how fast the machine is."""
import subprocess

import pandas as pd
import pytest

from handofflab import bench_handoffs, catalog, paths

# one worker, so the module's quick run is measured once
pytestmark = pytest.mark.xdist_group("bench-handoffs")


# the tests that read the module's quick run: one unit of the full tier, so CI's slice runs them together
QUICK_RUN = pytest.mark.full("a quick JMH run of every handoff, shared by the tests that read it",
                             seconds=35, unit="bench-handoffs-quick")


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
