"""`./lab bench calendar`: a short real run of McBride & Ferrell's experiment on every correct list kind
and on SQLite, its ratios and tests read right, and a wrong run kept and marked, never dropped. The
real measurement (`./lab bench calendar`, minutes) is the benchmark, not a test."""
import os

import pandas as pd
import pytest

from handofflab.benches import bench_calendar
from handofflab.ground import catalog
from handofflab.ground.console import LabError


@pytest.mark.full("a quick run of bench calendar: every store and mode against SQLite", seconds=24)
def test_a_short_full_run_measures_every_store_and_mode_against_sqlite_on_each_core_count():
    """Every correct list kind and SQLite, each thread management; and, as --full does, each point on 1,
    2, 4, ... of this machine's cores (CPU affinity; the paper compared machines of 4 and 8 cores), the
    JVM's own count of them in each row. (--quick runs on all cores only: the same code, one count.)"""
    assert bench_calendar.core_counts(8, True) == [1, 2, 4, 8] and bench_calendar.core_counts(6, True) == [1, 2, 4, 6]
    assert bench_calendar.core_counts(2, False) == [2] and bench_calendar.core_counts(1, True) == [1]
    cores = bench_calendar.core_counts(len(os.sched_getaffinity(0)), True)
    out = bench_calendar.run("full", reps=2, ns=[16], limits=[4, 64])
    raw = pd.read_csv(out / "raw.csv")
    stores = set(bench_calendar.list_kinds(catalog.load())) | {"SQLite"}
    assert set(raw["store"]) == stores and stores >= {"LazyList", "LockFreeList", "SkipListSet"}
    assert set(raw["threads"]) >= {"pool", "spawn"} and (raw["status"] == "ok").all() and (raw["total_s"] > 0).all()
    assert len(raw) == len(stores) * raw["threads"].nunique() * 2 * len(cores) * 2
    # X, the threads running at once, swept as the paper's Fig. 3: every point at each X
    assert (raw.groupby("limit").size() == len(raw) // 2).all() and set(raw["limit"]) == {4, 64}
    assert sorted(raw["cores"].unique()) == cores
    assert (raw.groupby("cores").size() == len(raw) // len(cores)).all(), "every point on every core count"
    summary = pd.read_csv(out / "summary.csv")
    assert (summary[summary["store"] == "SQLite"]["ratio_to_db"] == 1).all(), "each ratio is to the database on the same cores"
    kit = summary[summary["store"] != "SQLite"]
    assert (kit["ratio_to_db"] == kit["median_s"] / kit["db_median_s"]).all()
    tests = pd.read_csv(out / "tests.csv")
    assert set(tests["claim"]) == {"lists differ (Kruskal-Wallis)", "pool vs spawn (Mann-Whitney)"}
    assert tests["p"].between(0, 1).all()
    assert set(summary["limit"]) == {4, 64} and all("threads at once" in w for w in tests["where"])
    assert "| X |" in (out / "summary.md").read_text()
    for png in ("calendar_times.png", "calendar_ratio.png", "calendar_threads.png"):
        assert (out / png).stat().st_size > 10_000
    # n = 16 tests no claim about more than 1 024 tasks, and the summary says so (issue 49)
    assert "it does not test that claim" in (out / "summary.md").read_text()
    # the whole database (issue 49): the same stores and thread managements, at the paper's X, every run checked
    db = pd.read_csv(out / "database_raw.csv")
    assert set(db["store"]) == stores and set(db["threads"]) == set(raw["threads"]) and (db["status"] == "ok").all()
    assert len(db) == len(stores) * db["threads"].nunique() * 2 and (db[["create_s", "edit_s", "delete_s"]] > 0).all().all()
    assert db["cores"].nunique() == 1 and db["cores"].iloc[0] == max(cores)
    db_summary = pd.read_csv(out / "database_summary.csv")
    assert (db_summary[db_summary["store"] == "SQLite"]["ratio_to_db"] == 1).all()
    assert set(pd.read_csv(out / "database_tests.csv")["claim"]) == set(tests["claim"])
    text = (out / "summary.md").read_text()
    assert "## The whole database" in text and "at most 64 threads at once" in text.split("## The whole database")[1]
    assert (out / "calendar_database.png").stat().st_size > 10_000
    if len(cores) > 1:
        assert set(summary["cores"]) == set(cores)
        assert all("cores" in w for w in tests["where"])
        assert (out / "calendar_cores.png").stat().st_size > 10_000
        assert "| cores |" in (out / "summary.md").read_text()


def test_a_run_that_lost_an_event_is_kept_marked_and_left_out(tmp_path, monkeypatch):
    monkeypatch.setattr(bench_calendar, "OUT", tmp_path)
    rows = [dict(store=s, threads=m, n=8, rep=r, create_s=0.1, edit_s=0.1, delete_s=0.1, total_s=t, status="ok")
            for s, t in (("LazyList", 0.3), ("LockFreeList", 0.3), ("SQLite", 0.1)) for m in ("pool", "spawn")
            for r in (1, 2)]
    rows[0] = {**rows[0], "total_s": 99.0, "status": "wrong: event 3 not deleted"}
    pd.DataFrame(rows).to_csv(tmp_path / "raw.csv", index=False)
    summary, _, _ = bench_calendar.summarize(tmp_path / "raw.csv")
    lazy_pool = summary[(summary["store"] == "LazyList") & (summary["threads"] == "pool")].iloc[0]
    assert lazy_pool["ok_runs"] == 1 and lazy_pool["runs"] == 2 and lazy_pool["median_s"] == pytest.approx(0.3)
    assert lazy_pool["ratio_to_db"] == pytest.approx(3.0)
    assert "1/2" in (tmp_path / "summary.md").read_text()


def test_bad_options_are_named():
    with pytest.raises(LabError, match="--reps must be at least 2"):
        bench_calendar.run("quick", reps=1)
    with pytest.raises(LabError, match="--n takes positive numbers"):
        bench_calendar.run("quick", ns=[0])
    with pytest.raises(LabError, match="--threads takes positive numbers"):
        bench_calendar.run("quick", limits=[0])


def test_the_shipped_runs_summarise_against_the_database_and_test_the_papers_claims():
    """benches/bench_calendar_results.py on the notebook's reference runs: every point's median against SQLite's in
    the same run (SQLite's own ratio 1), both claims tested with a p in [0, 1], and the tables summary.md prints."""
    from handofflab.benches import bench_calendar_results as results
    from handofflab.ground import paths
    raw = pd.read_csv(paths.NOTEBOOKS / "reference" / "calendar" / "raw.csv")
    summary, tests = results.analyze(raw)
    db = summary[summary["store"] == results.DATABASE]
    assert len(db) and (db["ratio_to_db"].round(9) == 1).all()
    assert set(tests["claim"]) == {"lists differ (Kruskal-Wallis)", "pool vs spawn (Mann-Whitney)"}
    assert tests["p"].between(0, 1).all() and (tests["significant"] == (tests["p"] < results.ALPHA)).all()
    lines = results.tables(summary, tests)
    assert lines[0].startswith("| store | threads | n |") and len(lines) == 2 + len(summary) + 5 + len(tests)
