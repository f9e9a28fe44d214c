"""`./lab bench servers`: a --quick run yields well-formed CSV, summary and plots. Benchmarks are not
timed tests: nothing here depends on how fast the machine is. What is asserted holds on any machine:
every run is exactly once, and no run beats the Little's-law bound (efficiency <= 1), which would
mean the bound or the measurement is wrong."""
import subprocess

import pandas as pd
import pytest

from handofflab.benches import bench_servers as bench, bench_shared
from handofflab.ground import catalog, paths

# one worker, so the module's quick run is measured once
pytestmark = pytest.mark.xdist_group("bench-servers")


# the tests that read the module's quick run: one unit of the full tier, so CI's slice runs them together
QUICK_RUN = pytest.mark.full("a quick run of bench servers (two designs, repeated), shared by the tests that read it",
                             seconds=60, unit="bench-servers-quick")


@pytest.fixture(scope="module")
def quick():
    out = bench.run("quick", ["SharedBuffer", "Iterative"])
    return out, pd.read_csv(out / "raw.csv"), pd.read_csv(out / "summary.csv")


@QUICK_RUN
def test_every_point_is_repeated_and_exactly_once(quick):
    _, raw, summary = quick
    points = bench.points(bench.QUICK, ["SharedBuffer", "Iterative"], catalog.load())
    assert len(summary) == len(points)
    assert len(raw) == len(points) * bench.QUICK.reps >= 5 * len(points)
    assert (raw["status"] == "ok").all(), raw[raw["status"] != "ok"]
    assert (raw["lost"] == 0).all() and (raw["duplicated"] == 0).all() and (raw["server_problems"] == 0).all()


@QUICK_RUN
def test_no_run_beats_the_littles_law_bound(quick):
    _, raw, summary = quick
    assert (raw["seconds"] >= raw["bound_seconds"]).all()
    assert ((summary["efficiency"] > 0) & (summary["efficiency"] <= 1)).all()
    iterative = summary[summary["design"] == "Iterative"].iloc[0]
    assert iterative["bound_s"] == pytest.approx(140 * 1 * 0.010)  # N t_r / 1 worker


@QUICK_RUN
def test_the_slowest_request_is_recorded_beside_the_99th_percentile(quick):
    """A run ends with its slowest client's last reply: the summary shows it (why the PHT trails its bound)."""
    _, raw, summary = quick
    assert ((raw["max_ms"] >= raw["p99_ms"]) & (raw["p99_ms"] >= raw["p50_ms"]) & (raw["p50_ms"] > 0)).all()
    assert (summary["max_ms"] >= summary["p99_ms"]).all()


@QUICK_RUN
def test_results_written_before_the_slowest_request_was_recorded_still_summarize(quick, tmp_path, monkeypatch):
    """A raw.csv from an older kit has no max_ms column: the summary shows its p99 and a dash, not a KeyError."""
    _, raw, _ = quick
    old = tmp_path / "raw.csv"
    raw.drop(columns=["max_ms"]).to_csv(old, index=False)
    monkeypatch.setattr(bench, "OUT", tmp_path)  # the module's own results stay as the quick run wrote them
    summary = bench.summarize(old, catalog.load())
    assert "max_ms" not in summary and (summary["p99_ms"] > 0).all()
    rows = [line for line in (tmp_path / "summary.md").read_text().splitlines() if line.startswith("| SharedBuffer |")]
    assert rows and all(line.endswith("| — |") for line in rows)


def test_the_paper_mode_is_table_1_at_the_papers_own_service_time():
    cat = catalog.load()
    points = bench.points(bench.PAPER, list(cat.servers), cat)
    assert len(points) == len(cat.servers)  # one point per design, no sweeps
    assert all(p.split(":")[1] == "250" for p in points)
    pht = next(p for p in points if p.startswith("ParallelHashTable:"))
    assert pht.split(":")[2:4] == ["50", "101"]  # the paper's W and slots


@QUICK_RUN
def test_the_papers_figures_are_scaled_beside_ours(quick):
    _, _, summary = quick
    fig5 = summary[(summary["design"] == "SharedBuffer") & (summary["workers"] == 10)].iloc[0]
    assert fig5["paper_scaled_s"] == pytest.approx(74.118 * 10 / 250)  # Fig. 5, W = 10, scaled to t_r = 10 ms


@QUICK_RUN
def test_plots_and_summary_are_written(quick):
    out, _, _ = quick
    for png in ("time_vs_workers.png", "efficiency.png"):
        data = (out / png).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    assert (out / "summary.md").read_text().count("\n| SharedBuffer |") >= 4


def test_bad_input_is_named():
    run = subprocess.run([str(paths.ROOT / "lab"), "bench", "servers", "--design", "Fastest"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "unknown design 'Fastest'" in run.stdout + run.stderr
    run = subprocess.run([str(paths.ROOT / "lab"), "bench", "servers", "--reps", "0"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "--reps must be at least 1" in run.stdout + run.stderr


def test_a_second_run_while_one_measures_is_refused(tmp_path, monkeypatch):
    """Two runs at once would overwrite each other's raw.csv and share the cores: the second is named and refused,
    before it writes anything; a bad argument is still named first (the lock is taken after the checks)."""
    import os

    monkeypatch.setattr(paths, "RESULTS", tmp_path)  # this test's lock, not the quick run's
    env = {**os.environ, "HANDOFFLAB_RESULTS": str(tmp_path)}
    with bench_shared.alone("bench servers"):
        run = subprocess.run([str(paths.ROOT / "lab"), "bench", "servers", "--design", "Iterative"],
                             capture_output=True, text=True, timeout=300, env=env)
        assert run.returncode == 2 and "another `./lab bench servers` is measuring" in run.stdout + run.stderr
        assert not (tmp_path / "bench" / "servers").exists()
        run = subprocess.run([str(paths.ROOT / "lab"), "bench", "servers", "--reps", "0"],
                             capture_output=True, text=True, timeout=300, env=env)
        assert run.returncode == 2 and "--reps must be at least 1" in run.stdout + run.stderr
    with bench_shared.alone("bench servers"):  # let go when the run ended: the next one may measure
        pass
