"""The notebooks layer: every notebook executes with a real kernel, plots, and
prints the results it claims (each notebook also asserts its own claims on the
run's data, so a failed claim fails its execution)."""
import re

import pytest

from handofflab.docs import notebooks
from handofflab.ground import paths

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


@pytest.mark.full("installs JupyterLab into .venv on first use (45 packages), then a notebook run in Chromium", seconds=60)
def test_a_reader_opens_a_notebook_in_jupyterlab_and_runs_it_in_chromium(tmp_path):
    """`./lab notebooks open pipes_scan`, as a reader runs it, driven in headless Chromium (Debian's, by playwright):
    the .py file opens as a notebook on the kit's kernel, Run All Cells runs it, and its plot shows. The screenshot
    is kept beside the test's report, to look at."""
    import os
    import subprocess
    import sys
    import time
    import urllib.request
    from handofflab.ground import toolchain
    chromium = toolchain.chromium()
    if chromium is None:
        pytest.skip("no Chromium here (sudo apt-get install chromium)")
    notebooks.jupyterlab()  # installed on first use, as `open` does; from here on playwright is importable
    from playwright.sync_api import sync_playwright
    port, token = toolchain.free_ports(1)[0], "handofflab-test-token"
    before = (paths.NOTEBOOKS / "pipes_scan.py").read_text()
    env = {**os.environ, "JUPYTER_TOKEN": token}
    server = subprocess.Popen([sys.executable, "-m", "handofflab", "notebooks", "open", "pipes_scan", f"--port={port}"],
                              env=env, stdout=open(tmp_path / "jupyterlab.log", "w"), stderr=subprocess.STDOUT)
    try:
        for _ in range(120):  # JupyterLab answers its API once it listens
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
                break
            except OSError:
                time.sleep(1)
        else:
            pytest.fail("JupyterLab never answered:\n" + (tmp_path / "jupyterlab.log").read_text()[-3000:])
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(chromium), args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run"])
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            shot = paths.ROOT / ".cache" / "test-report" / "jupyterlab-pipes_scan.png"
            shot.parent.mkdir(parents=True, exist_ok=True)
            try:
                page.goto(f"http://127.0.0.1:{port}/lab/tree/pipes_scan.py?token={token}")
                page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)  # a notebook, not a text editor
                # the kit's kernel started and idle: before it, Run All Cells is not yet enabled
                page.wait_for_selector(".jp-StatusBar-Widget :text('Python 3 (ipykernel) | Idle')", timeout=120_000)
                # the notebook is the current widget: a click on a cell that is shown (issue 84: the first `.jp-Cell`
                # was one JupyterLab had not laid out yet, "element is not visible" for 30 s on a busy machine)
                page.locator(".jp-Notebook .jp-Cell >> visible=true").first.click(timeout=120_000)
                # the menu bar's Run, then its Run All Cells (a text match alone also finds "run" in the notebook's prose)
                page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click(timeout=30_000)
                page.get_by_role("menuitem", name="Run All Cells", exact=True).click(timeout=30_000)
                page.wait_for_selector(".jp-OutputArea-output img", timeout=300_000)
                page.wait_for_function("() => [...document.querySelectorAll('.jp-InputPrompt')]"
                                       ".every(e => !e.textContent.includes('*'))", timeout=300_000)
                text = page.inner_text(".jp-Notebook")
                page.query_selector(".jp-OutputArea-output img").scroll_into_view_if_needed()
            finally:  # what the browser saw, whether or not the run got there
                page.screenshot(path=str(shot))
                (tmp_path / "notebook.txt").write_text(page.inner_text("body"))
                browser.close()
        assert CLAIMS["pipes_scan"] in text and "Traceback" not in text
        assert (paths.NOTEBOOKS / "pipes_scan.py").read_text() == before  # run, not saved: the kit's file as it was
        assert shot.stat().st_size > 50_000  # a page with a plot on it, not a blank one
    finally:
        server.terminate()
        server.wait(60)
    assert server.returncode is not None


@pytest.mark.parametrize("busy", [False, True], ids=["quiet", "busy"])
def test_a_kernel_that_dies_is_a_message_and_on_a_busy_machine_a_retry(busy, tmp_path, monkeypatch):
    """A kernel killed mid-run (its cell ends its own process) is no traceback: one LabError naming the notebook, what
    happened to the kernel and the fix; on a busy machine the notebook runs once more first (the kernel did start
    twice: the cell before the kill ran twice)."""
    from handofflab.ground import toolchain
    from handofflab.ground.console import LabError
    monkeypatch.setattr(notebooks, "BUILD", tmp_path / "build")
    monkeypatch.setattr(notebooks, "RENDERED", tmp_path / "rendered")
    monkeypatch.setattr(toolchain, "busy", lambda: busy)
    runs = tmp_path / "runs.txt"
    source = tmp_path / "dies.py"
    source.write_text(f'# %%\nopen({str(runs)!r}, "a").write("ran\\n")\n\n# %%\nimport os\nos._exit(1)\n')
    with pytest.raises(LabError) as e:
        notebooks.execute(source, timeout=60)
    assert "notebook dies.py: the Jupyter kernel died while it ran a cell" in e.value.problem, e.value.problem
    assert "./lab notebooks dies" in e.value.fix
    assert runs.read_text().count("ran") == (2 if busy else 1)
