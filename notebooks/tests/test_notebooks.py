"""The notebooks layer: every notebook executes with a real kernel, plots, and
prints the results it claims (each notebook also asserts its own claims on the
run's data, so a failed claim fails its execution)."""
import re

import pytest

from handofflab import notebooks, paths

# one worker for every test that writes into the source tree (book/src/generated, notebooks/build)
pytestmark = pytest.mark.xdist_group("source-tree")

# A phrase each notebook's executed output must contain: the result it exists to show.
CLAIMS = {
    "shared_buffer": "exactly once",
    "pht_theorems": "takes, every probe counted",
    "pht_conflicts": "printed in the paper             = 0.0019703951",
    "pipes_scan": "each connection taken exactly once",
    "benchmarks": "Kruskal–Wallis over",
    "calendar_bench": "times SQLite's time in this run",
    "dht_statistics": "every value stored, found and deleted exactly once",
}


def test_every_notebook_has_a_claim():
    assert {s.stem for s in notebooks.sources()} == set(CLAIMS)


@pytest.mark.parametrize("source", notebooks.sources(), ids=lambda p: p.stem)
def test_notebook_executes_and_plots(source):
    done = notebooks.execute(source)
    assert done.figures >= 1
    text = done.markdown.read_text()
    assert "Traceback" not in text and "Error" not in text
    assert CLAIMS[source.stem] in text
    # every figure says in words what it is about (before: nbconvert's "png")
    alts = re.findall(r"!\[([^\]]*)\]\(generated/notebooks/", text)
    assert len(alts) == done.figures and all(a.startswith("Figure: ") and len(a) > 20 for a in alts), alts


def _without_this_machines_results(tmp_path, monkeypatch, notebook: str) -> str:
    """The notebook's executed text with no result of this machine's: its kernel inherits HANDOFFLAB_RESULTS, an empty
    folder. (Moving results/bench/ aside instead pulled it from under the benchmarks that other tests run meanwhile.)"""
    monkeypatch.setenv("HANDOFFLAB_RESULTS", str(tmp_path / "results"))
    return notebooks.execute(paths.NOTEBOOKS / f"{notebook}.py").markdown.read_text()


def test_the_benchmarks_notebook_says_when_it_reads_the_reference(tmp_path, monkeypatch):
    """With no complete result of this machine's, the notebook reads the shipped
    reference and says so; the reference itself is a complete run."""
    for kind in ("servers", "handoffs"):
        assert (paths.NOTEBOOKS / "reference" / kind).is_dir()
    text = _without_this_machines_results(tmp_path, monkeypatch, "benchmarks")
    assert text.count("the shipped reference result (notebooks/reference/)") >= 2


def test_the_calendar_notebook_reads_a_complete_reference_and_says_so(tmp_path, monkeypatch):
    """The shipped reference is a whole run (every store, pool and spawn, five runs a point): the
    notebook asserts that before it reads a number."""
    text = _without_this_machines_results(tmp_path, monkeypatch, "calendar_bench")
    assert "reading the shipped reference result (notebooks/reference/)" in text
    assert "parameters named in the sentence that says 5: 5 (m, x, y, v, z); the experiment's knobs with n: 6" in text
