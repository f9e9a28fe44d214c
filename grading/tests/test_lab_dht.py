"""Grading the DHT lab: its reference, its starter and its samples get the marks expected.toml records, every run,
and each report says what the sample got wrong."""
import sys
from pathlib import Path

import pytest

import grader
from handofflab.ground import paths

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import SAMPLES, _expected, grade  # noqa: E402


# What each DHT sample's report must say.
DHT = {
    "starter": "completed() waited although only 2 replies were in flight",
    "correct": "every value stored, found and deleted exactly once, in every process",
    "drains_when_full": "every value stored, found and deleted exactly once, in every process",
    "early_release": "a buffer went back to the pool before its reply was out",
    "drops_when_full": "a buffer never came back",
    "naps_while_waiting": "by looking again and again: the service thread woke",
    "resets_depth_when_idle": "completed(buffer 2) waited for a reply with 1 in flight, at depth 2, after idle()",
    "releases_twice": "went back to the pool twice: two requests would be read into it at once",
}


@pytest.mark.xdist_group("dht-lab")   # one worker: each grading runs 3 JVMs at a time
@pytest.mark.parametrize("sample", [s if s == "early_release" else pytest.param(
    s, marks=pytest.mark.full("the lab's every sample, the reference too (about 40 s: three JVMs at a time); the "
                              "default tier grades one slip, whose grading runs every check the reference passes",
                              seconds=25)) for s in DHT])
def test_each_dht_sample_gets_its_marks_and_feedback_that_names_its_slip(tmp_path, sample):
    folder = paths.LABS / "dht" / "starter" if sample == "starter" else SAMPLES / "dht" / sample
    scores, report = grade(tmp_path, "dht", folder)
    assert scores == _expected("dht", sample), report
    assert DHT[sample] in report, report
    if scores[4]:  # the runs ran: the table shows each, yours and the kit's in turn
        assert "| 1 | yours |" in report and "| 1 | the kit's |" in report, report
    if sample in ("early_release", "drops_when_full", "releases_twice"):  # the probe's catch is drawn as swimlanes
        assert "| # | service thread | writer |" in report, report


def test_the_dht_labs_probe_is_the_catalogs():
    """The lab's hidden probe checks a student's queue as `./lab check java` checks the kit's: its slips are the
    catalog's Java twins of the spec's, and each fails as catalogued (java/tests/test_java_checks.py runs them)."""
    from handofflab.ground import catalog
    cat = catalog.load()
    checked = {c: t.like for t in grader.load_rubric("dht").tests if t.kind == "checker" for c in t.checkers}
    assert set(checked) == {"replies", "depth"} and set(checked.values()) == {"DepthQueue"}
    assert cat.variant("DepthQueue").class_kind == "queue" and cat.variant("DepthQueue").correct
    queues = [v for v in cat.variants.values() if v.handoff.name == "CompletionQueue"]
    assert {v.name: v.expected("replies") for v in queues} == {
        "DepthQueue": "pass", "EarlyReleaseQueue": "violation:AwaitSound", "OverwriteQueue": "deadlock",
        "IdleResetQueue": "pass"}
    # the depth probe: pipelining by behaviour; the slip it alone sees is safe, so the reply probe passes it
    assert {v.name: v.expected("depth") for v in queues} == {
        "DepthQueue": "pass", "EarlyReleaseQueue": "pass", "OverwriteQueue": "pass",
        "IdleResetQueue": "violation:WaitsWithinDepth"}
