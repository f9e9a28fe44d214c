"""The grader held to submissions written as students write them, other than the kit's own
samples: correct ones in other styles (a deque, timed waits in a loop, linear probing) must get full
marks; correct ones that are not the lab's design (a ReentrantLock with two conditions, three
semaphores, a wrapped ArrayBlockingQueue) every correctness mark and not the design's; plausible bugs
(one condition with signal(), a deque that takes one more than its capacity, a put that gives up when
full, a take that reads its slot outside the monitor (the double take), a probe step that can be 0, a
table that spills over when full) their expected marks, and feedback that names what the counterexample shows, not a guess. Each is graded once per test run."""
import sys
from pathlib import Path

import pytest

from handofflab.commands import verify

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import _graded_as_an_instructor_would  # noqa: E402

# (lab, sample, what its report must say) — the marks are in expected.toml
STUDENT_SET = [
    ("buffer", "reentrant_lock", "`java.util.concurrent.locks.ReentrantLock`"),
    ("buffer", "semaphores", "`java.util.concurrent.Semaphore`"),
    ("buffer", "linked_list", "Passed"),
    ("buffer", "deque_if_in_put", "held more connections than its capacity"),
    ("buffer", "one_condition_signal", "Every thread waits"),
    ("buffer", "drops_when_full", "never reached a worker"),
    ("buffer", "inverted_wait", "Not one connection was handed over"),
    ("buffer", "timed_wait", "Passed"),
    ("buffer", "library_queue", "Not the lab's design: it never calls `Object.wait()`"),
    ("buffer", "notify_on_change", "a worker slept on beside a connection nobody took"),
    ("buffer", "wakes_one_acceptor", "two acceptors waited on a full handoff of 2, two takes came in a row"),
    ("buffer", "reads_outside_lock", "one connection was taken twice"),
    ("buffer", "wakes_when_full_ends", "Passed"),
    ("pht", "linear_probe", "Passed"),
    ("pht", "zero_step", "yet no connection is handed over: a loop that never ends"),
    ("pht", "spills_when_full", "a put that returns while every slot is full"),
    ("pht", "fifo_ring", "Not the lab's design: it never calls `SynchronizedRef.set()`"),
    ("pht", "ring_of_slots", "put(3) belongs in slot 3"),
    ("pht", "one_lock_table", "`put()` and `take()` call `SynchronizedRef`'s methods while holding one lock"),
    ("pht", "fixed_start", "with its start steered to key 3, a take from a full table must empty slot 3"),
    ("pht", "single_pass", "gave up and returned null when its search found nothing"),
    ("pht", "counts_on_this", "Passed: the lab's design."),
    ("pht", "notify_take", "more workers than slots"),
    ("calendar", "racy_lock_map", "each held a lock, but not the same one: `ReentrantLock#1` and `ReentrantLock#2`"),
    ("calendar", "racy_compute_if_absent", "a request threw `ConcurrentModificationException`"),
    ("calendar", "concurrent_lock_map", "Passed"),
]


# the full tier grades every one, each 20-30 s; the default tier none: its one buggy buffer, drops_when_full, is
# graded there by the term's gradebook (bo's zip, test_term.py), and each lab's own samples by test_lab_LAB.py
DEFAULT_TIER: set[tuple[str, str]] = set()
SEEN_SECONDS = 25


@pytest.mark.parametrize("lab, sample, says", [
    pytest.param(lab, sample, says, id=f"{lab}/{sample}", marks=[] if (lab, sample) in DEFAULT_TIER else [
        pytest.mark.full("every student-style sample: a grading each", seconds=SEEN_SECONDS)])
    for lab, sample, says in STUDENT_SET])
def test_a_student_style_submission_gets_its_marks_and_honest_feedback(tmp_path, lab, sample, says):
    # graded as an instructor would, regrading what a busy machine left "not graded": beside a full tier at 1.7 cores
    # of other work, zero_step's spinning put ran past its public test's 5 s and then 30 s, still computing, which is
    # the grader's honest "regrade" for a limit hit on a busy machine, not the quiet machine's 0
    g = _graded_as_an_instructor_would(tmp_path, lab, sample)
    report = g.report()
    assert [t.score for t in g.tests] == verify.sample_marks()[lab][sample], report
    assert says in report, report
    if sum(verify.sample_marks()[lab][sample]) < 10:
        feedback = "\n".join(line for line in report.splitlines() if not line.startswith("## "))  # not test names
        # ... or where a worker slept on beside a connection, the built state's own evidence (TwoWaitingWorkers)
        assert "lost wake-up" not in feedback or "Every thread waits" in feedback \
            or "slept on beside a connection nobody took" in feedback, \
            "a lost wake-up is named only where every thread waits"


def test_the_set_covers_every_style_sample():
    listed = {(lab, s) for lab, s, _ in STUDENT_SET}
    expected = verify.sample_marks()
    assert listed <= {(lab, s) for lab, names in expected.items() for s in names}
