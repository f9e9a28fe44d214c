"""Trace validation (`./lab check trace`): recorded Java runs judged by TLC against the design's spec.
A correct class's runs are all behaviours of it; a class whose bug shows in a run is reported at the
first event the design cannot take, including a bug that loses and duplicates nothing."""
import pytest

from handofflab import catalog, tracecheck
from handofflab.console import LabError

TRACEABLE = tracecheck.traceable()


def test_the_catalog_claims_trace_verdicts_for_a_design_with_a_trace_spec():
    names = {v.name for v in TRACEABLE}
    assert {"MonitorBuffer", "IfBuffer", "LifoBuffer"} <= names
    lifo = catalog.load().variant("LifoBuffer")  # a bug only trace validation claims to see
    assert lifo.expected("lincheck") == "pass" and lifo.expected("stress") == "pass" and lifo.expected("tlc") is None


@pytest.mark.parametrize("variant", TRACEABLE, ids=lambda v: v.name)
def test_trace_validation_gives_the_catalogued_verdict(variant):
    outcome = tracecheck.check_variant(variant)
    assert outcome.verdict == variant.expected("trace"), (variant.name, outcome.detail)
    if variant.correct:
        assert outcome.runs == tracecheck.RUNS  # every run a behaviour of the design
    else:
        lane = outcome.swimlane
        assert lane is not None and "the design cannot do this" in lane.steps[-1].action, lane
        assert lane.steps[-1].action.startswith("take() returns")


def test_a_run_that_breaks_only_the_order_is_reported_at_its_first_wrong_take():
    """A stack where the design has a ring: two puts, then a take that returns the second."""
    log = [dict(thread=t, kind=k, op=o, id=i) for t, k, o, i in [
        ("0", "begin", "put", "1"), ("0", "end", "put", "1"), ("0", "begin", "put", "2"), ("0", "end", "put", "2"),
        ("1", "begin", "take", "0"), ("1", "end", "take", "2")]]
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        assert tracecheck.judge("SharedBufferTrace", log, 2, Path(tmp) / "a") == (False, 6)
        log[-1]["id"] = "1"  # the oldest: a behaviour of the design
        assert tracecheck.judge("SharedBufferTrace", log, 2, Path(tmp) / "b")[0] is True
        # a put that returns while the ring is full and nobody takes: no room in the design
        full = log[:4] + [dict(thread="0", kind="begin", op="put", id="3"), dict(thread="0", kind="end", op="put", id="3")]
        assert tracecheck.judge("SharedBufferTrace", full, 2, Path(tmp) / "c") == (False, 6)


def test_a_design_without_a_trace_spec_is_named():
    with pytest.raises(LabError, match="no catalogued trace verdict"):
        tracecheck.check("TwoLockQueue")
