"""The notebooks layer: every notebook executes with a real kernel and plots."""
import pytest

from handofflab import notebooks


@pytest.mark.parametrize("source", notebooks.sources(), ids=lambda p: p.stem)
def test_notebook_executes_and_plots(source):
    done = notebooks.execute(source)
    assert done.figures >= 1
    text = done.markdown.read_text()
    assert "Traceback" not in text and "exactly once" in text
