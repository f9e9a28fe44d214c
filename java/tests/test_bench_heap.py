"""`./lab bench heap`: a class histogram read right, a short real run against a real server, and
the one check it makes (the bound on kept ids) shown able to fail. The long run itself (400 000
requests) is the benchmark, not a test."""
import pandas as pd

from handofflab.benches import bench_heap

# `jcmd PID GC.class_histogram` as Temurin 25 prints it (rows cut; the Long row from a 300 000-request run)
RECORDED = """12345:
 num     #instances         #bytes  class name (module)
-------------------------------------------------------
   1:        103648        2487552  java.lang.Long (java.base@25.0.3)
   2:         52311        2100000  java.util.HashMap$Node (java.base@25.0.3)
   3:          8123         912000  [B (java.base@25.0.3)
Total        180000        7765432
"""


def test_a_class_histogram_is_read():
    h = bench_heap.parse_histogram(RECORDED)
    assert h == bench_heap.Histogram(live_bytes=7765432, longs=103648)


def test_a_short_run_serves_every_round_and_stays_within_the_bound():
    out = bench_heap.run("SharedBuffer", rounds=2, per_round=2000)
    rows = pd.read_csv(out / "heap.csv")
    assert list(rows["requests"]) == [2000, 4000]
    assert (rows["longs"] >= rows["requests"]).all()  # every served id is still in the window
    assert not (out / "summary.md").read_text().startswith("**PARTIAL")
    assert (out / "heap.png").stat().st_size > 0


def test_ids_past_their_bound_mark_the_run(tmp_path, monkeypatch):
    """The check can fail: a server that kept every id would end above the bound."""
    monkeypatch.setattr(bench_heap, "OUT", tmp_path)
    grown = [{"round": r, "requests": r * 100_000, "live_bytes": r * 6_000_000, "longs": r * 100_000} for r in (1, 2, 3, 4)]
    bench_heap._report("SharedBuffer", grown)
    assert (tmp_path / "summary.md").read_text().startswith("**PARTIAL: the bound on kept ids does not hold")
