"""Trace validation (`./lab check trace`): recorded Java runs judged by TLC against the design's spec.
A correct class's runs are all behaviours of it; a class whose bug shows in a run is reported at the
first event the design cannot take, including a bug that loses and duplicates nothing."""
import os

import pytest

from handofflab.docs import book
from handofflab.ground import catalog
from handofflab.java import tracecheck
from handofflab.ground.console import LabError

TRACEABLE = tracecheck.traceable()
# The runs whose counterexamples the book draws run on the book's worker (`./lab test` runs on every
# core) and are kept where its build finds them, so that it does not record and judge them again.
DRAWN = set(book.included("trace"))


def test_the_catalog_claims_trace_verdicts_for_a_design_with_a_trace_spec():
    names = {v.name for v in TRACEABLE}
    assert {"MonitorBuffer", "IfBuffer", "LifoBuffer", "TwoLockQueue", "ParallelHashTable", "Pipes", "Mailbox",
            "MailboxNoBusy"} <= names
    lifo = catalog.load().variant("LifoBuffer")  # a bug only trace validation claims to see
    assert lifo.expected("lincheck") == "pass" and lifo.expected("stress") == "pass" and lifo.expected("tlc") is None


def test_every_java_class_of_a_traced_design_has_a_trace_claim_or_a_reason():
    for v in catalog.load().variants.values():
        if v.java and v.handoff.trace:
            assert v.expected("trace") or v.why.get("trace"), f"{v.name}: no trace verdict and no reason"


@pytest.mark.parametrize("variant", [
    pytest.param(v, id=v.name, marks=[pytest.mark.xdist_group("source-tree")] if f"{v.name}.trace.md" in DRAWN else
                 [pytest.mark.full("every traced class: ten recorded runs and a TLC run each (the default tier: the "
                                   "book's catches, and one round of a correct design below)", seconds=11)])
    for v in TRACEABLE])
def test_trace_validation_gives_the_catalogued_verdict(variant):
    """On what the claim rests on (catalog trace_from): calls alone, as a submission is recorded, unless the
    catalog says the kit's class's own steps are needed."""
    outcome = tracecheck.check_variant(variant, calls_only=variant.trace_from == "calls")
    tracecheck.keep(variant, outcome)
    assert outcome.verdict == variant.expected("trace"), (variant.name, outcome.detail)
    if outcome.verdict == "pass":
        assert outcome.runs == tracecheck.RUNS  # every run a behaviour of the design
    else:
        lane = outcome.swimlane  # the first event the design cannot explain: a take's result, a put with no
        assert lane is not None and "the design cannot do this" in lane.steps[-1].action, lane  # room, or a step
        last = lane.steps[-1].action  # a call's return, or a step that the kit's class logged inside a call
        assert " returns" in last or "logged its steps inside each call" in lane.note, (last, lane.note)


def test_a_correct_design_passes_a_round_of_recorded_runs():
    """The pass path of `./lab check trace`, in the default tier: one round (a run per core, judged side by side)
    of the kit's monitor, each run a behaviour of the shared buffer. The catalog's claim rests on ten runs: the
    full tier checks it above, and `./lab verify-verdicts` again and again."""
    runs = os.cpu_count() or 1
    monitor = catalog.load().variant("MonitorBuffer")
    outcome = tracecheck.check_variant(monitor, runs=runs, calls_only=monitor.trace_from == "calls")
    assert outcome.verdict == "pass" and outcome.runs == runs, outcome.detail
    assert outcome.detail.startswith(f"{runs} runs, each a behaviour of"), outcome.detail


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


def test_a_class_without_a_trace_claim_is_named():
    with pytest.raises(LabError, match="no catalogued trace verdict"):
        tracecheck.check("NonPrimePht")


def judged(spec: str, events: list[tuple], capacity: int, tmp) -> tuple[bool, int]:
    log = [dict(thread=t, kind=k, op=o, id=i) for t, k, o, i in events]
    return tracecheck.judge(spec, log, capacity, tmp)


PUT_1_2 = [("0", "begin", "put", "1"), ("0", "end", "put", "1"), ("0", "begin", "put", "2"), ("0", "end", "put", "2")]


def test_each_design_reads_a_log_by_its_own_order_and_bound(tmp_path):
    """The same run against each design: the newest out first is a hash table's or the pipes' right,
    not a ring's or a queue's; a third put with two held and nobody taking fits only the queue."""
    newest = PUT_1_2 + [("1", "begin", "take", "0"), ("1", "end", "take", "2")]
    third = PUT_1_2 + [("0", "begin", "put", "3"), ("0", "end", "put", "3")]
    for spec, fifo, bounded in [("SharedBufferTrace", True, True), ("TwoLockQueueTrace", True, False),
                                ("ParallelHashTableTrace", False, True), ("PipesTrace", False, True)]:
        assert judged(spec, newest, 2, tmp_path / spec / "newest")[0] is (not fifo), spec
        assert judged(spec, third, 2, tmp_path / spec / "third")[0] is (not bounded), spec


def test_a_connection_taken_twice_is_no_behaviour_of_any_design(tmp_path):
    twice = PUT_1_2 + [("1", "begin", "take", "0"), ("2", "begin", "take", "0"), ("1", "end", "take", "1"),
                       ("2", "end", "take", "1")]
    for spec in ("SharedBufferTrace", "TwoLockQueueTrace", "ParallelHashTableTrace", "PipesTrace"):
        assert judged(spec, twice, 3, tmp_path / spec) == (False, 8), spec


def test_a_call_that_threw_is_no_behaviour_of_any_design(tmp_path):
    """A starter's take throws; the recorder logs it, and no design's trace spec can read it."""
    threw = PUT_1_2 + [("1", "begin", "take", "0"), ("1", "threw", "take", "0")]
    for spec in ("SharedBufferTrace", "TwoLockQueueTrace", "ParallelHashTableTrace", "PipesTrace"):
        assert judged(spec, threw, 2, tmp_path / spec) == (False, 6), spec
    lane = tracecheck.log_swimlane("Starter", [dict(thread=t, kind=k, op=o, id=i) for t, k, o, i in threw], 6,
                               tracecheck.size_note(2, "slots"))
    assert lane.steps[-1].action.startswith("take() threw") and "the design cannot do this" in lane.steps[-1].action


def test_a_run_that_hung_before_any_take_returned_passes_no_trace_check(tmp_path):
    """Calls that only began are a behaviour of every design: a class whose every call waits for ever
    would pass on them alone. Such a run is no evidence (the grader's inverted_wait sample shows it);
    a hang after a handoff is judged like any run, and an unfinished run without a hang is no hang."""
    began = [("0", "begin", "put", "1"), ("1", "begin", "take", "0"), ("2", "begin", "take", "0")]
    log = [dict(thread=t, kind=k, op=o, id=i) for t, k, o, i in began]
    assert judged("SharedBufferTrace", began, 1, tmp_path / "began")[0], "the design allows calls that only began"
    assert tracecheck.empty_hang(True, log)
    handed = PUT_1_2 + [("1", "begin", "take", "0"), ("1", "end", "take", "1")]
    assert not tracecheck.empty_hang(True, [dict(thread=t, kind=k, op=o, id=i) for t, k, o, i in handed])
    assert not tracecheck.empty_hang(False, log)


def test_the_feedback_names_each_designs_own_rule():
    """A failed trace check tells the student what that design forbids, read from its trace spec."""
    cat = catalog.load()
    for name, fifo, bounded in [("SharedBuffer", True, True), ("TwoLockQueue", True, False),
                                ("ParallelHashTable", False, True), ("Pipes", False, True)]:
        said = tracecheck.rule(cat.handoffs[name])
        assert ("oldest" in said) is fifo and ("every slot is full" in said) is bounded, (name, said)


def step(t, kind, slot, i):
    return (t, kind, "slot", i, slot)


def test_the_kits_hash_table_is_judged_step_by_step_from_its_slots(tmp_path):
    """With the slots' steps logged, a worker that reads a slot is off the design at that read, though
    nothing was lost or duplicated; a swap must take out what the slot holds, and a take return it."""
    def log(events):
        return [dict(thread=e[0], kind=e[1], op=e[2], id=e[3], slot=str(e[4]) if len(e) > 4 else "-1") for e in events]

    put = [("0", "begin", "put", "1"), step("0", "get", 1, "-1"), step("0", "set", 1, "1"), ("0", "end", "put", "1")]
    swap = [("1", "begin", "take", "0"), step("1", "swap", 0, "-1"), step("1", "swap", 1, "1"), ("1", "end", "take", "1")]
    split = [("1", "begin", "take", "0"), step("1", "get", 1, "1"), step("1", "set", 1, "-1"), ("1", "end", "take", "1")]
    judge = lambda events, name: tracecheck.judge("ParallelHashTableTrace", log(events), 3, tmp_path / name)  # noqa: E731
    assert judge(put + swap, "swap") == (True, 9)
    assert judge(put + split, "split") == (False, 6), "a worker's read of a slot is no step of the design"
    wrong = put + swap[:2] + [step("1", "swap", 2, "1")] + swap[3:]
    assert judge(wrong, "wrong") == (False, 7), "a swap takes out what its slot holds"
    lane = tracecheck.log_swimlane("SplitSwapPht", log(put + split), 6, tracecheck.size_note(3, "slots"))
    assert lane.steps[-1].action.startswith("reads slot 1: 1") and "steps" in lane.note
    long = log(split[:1] + put * 5 + split[1:])  # the take began before the rows shown: its begin is shown first
    lane = tracecheck.log_swimlane("SplitSwapPht", long, 22, tracecheck.size_note(3, "slots"))
    assert lane.steps[0] == tracecheck.Step("worker-1", "take() begins") and len(lane.steps) == 13


@pytest.mark.full("a stress run with tracing, then TLC on its log", seconds=18)
def test_stress_with_tracing_on_sees_what_stress_alone_passes():
    """`./lab check trace NAME --stress`: the stress check runs as always, its first trial (the largest
    size, two acceptors where the design has them) recorded and judged by TLC. LifoBuffer passes stress
    (nothing lost, nothing twice) and its trial is no behaviour of the ring; the kit's hash table's trial,
    slot steps included, is one of its design."""
    cat = catalog.load()
    stress, lifo = tracecheck.check_stress(cat.variant("LifoBuffer"), 4000)
    # stress finds nothing wrong (or, on a busy machine, finishes no trial in its time: no verdict)
    assert stress["verdict"] in ("pass", "incomplete") and lifo.verdict == "violation:FollowsSpec", (stress, lifo.detail)
    assert "2 acceptor(s), size 3" in lifo.detail and {"acceptor-1", "acceptor-2"} <= set(lifo.swimlane.threads)
    stress, pht = tracecheck.check_stress(cat.variant("ParallelHashTable"), 4000)
    assert stress["verdict"] in ("pass", "incomplete") and pht.verdict == "pass", (stress, pht.detail)
    assert stress["stats"]["traced_events"] == 4000 and "its beginning: 4000 events" in pht.detail


def test_stress_tracing_names_what_it_needs():
    import subprocess
    from handofflab.ground import paths
    run = subprocess.run([str(paths.ROOT / "lab"), "check", "trace", "--stress"], capture_output=True, text=True)
    assert run.returncode == 2 and "name it: ./lab check trace NAME --stress" in run.stdout + run.stderr, run
    with pytest.raises(LabError, match="no Java handoff with a trace spec"):
        tracecheck.check_stress(catalog.load().variant("EventStore"))


@pytest.mark.full("a long stress trace judged by TLC", seconds=32)
def test_an_unbounded_queues_stress_trace_stays_short_enough_for_tlc():
    """Issue 47: `./lab check trace TwoLockQueue --stress` never finished: the acceptor outran the workers, the
    unbounded queue held 9 547 connections in the first 40 000 events, and TLC, carrying that sequence in every
    state, ran out of memory after 600 s. In a traced trial of an unbounded design the acceptors now wait while
    the queue holds StressCheck.TRACED_WINDOW (16); the run is judged, and is a behaviour of the design."""
    stress, queue = tracecheck.check_stress(catalog.load().variant("TwoLockQueue"), tracecheck.STRESS_EVENTS)
    assert stress["verdict"] in ("pass", "incomplete") and queue.verdict == "pass", (stress, queue.detail)
    assert stress["stats"]["traced_events"] == tracecheck.STRESS_EVENTS


def test_a_calls_only_recording_has_no_steps_of_the_class(tmp_path):
    """-Dhandofflab.trace.calls=true records a kit class as a submission is recorded: its calls, none of the
    steps it logs itself (NoDummyQueue's links and unlinks); without it, the steps are there."""
    v = catalog.load().variant("NoDummyQueue")
    size = v.profile.stress_sizes[-1] if v.profile.stress_sizes else v.profile.size
    steps = {"link", "unlink", "set-head", "set-tail"}
    calls = tracecheck.record(v, 1, size, tmp_path, calls_only=True)
    full = tracecheck.record(v, 2, size, tmp_path)
    assert calls.log and not {e["kind"] for e in calls.log} & steps
    assert {e["kind"] for e in full.log} & steps


def test_a_claim_on_the_kits_own_steps_is_marked_so():
    """A trace claim that a student's class with the same bug could not meet (it logs no steps) says so: the mark
    (trace_from = "steps") sits only beside a claimed catch, never a pass, which needs no steps; the catalog says
    which (measured with `./lab check trace --calls-only --runs 10`: each so marked passed all ten runs on its calls),
    and this test restates none of its names."""
    cat = catalog.load()
    marked = [v for v in cat.variants.values() if v.trace_from == "steps"]
    assert marked, "no variant's trace claim rests on the kit's own steps: the mark and this test can go"
    assert all(v.expected("trace") not in (None, "pass") for v in marked), [
        (v.name, v.expected("trace")) for v in marked if v.expected("trace") in (None, "pass")]
    assert all(v.trace_from in ("calls", "steps") for v in cat.variants.values())
