"""What a student reads when a checker fails: chosen from what the counterexample shows (every
thread waiting is not a thread spinning; a race outside the lock is not a missing `while`),
and pointing to the hint of *this* lab's handout that fits (the rubric's [hints])."""
from __future__ import annotations

import re

from grader import rubric as rubric_mod
from grader.rubric import Rubric

_SPINS = re.compile(r"repeat(s|ed)? infinitely|active lock|livelock|spin[- ]?(cycle|loop)", re.I)
_WAITS = re.compile(r"\b(PARK|WAIT)\b|\.await\(|\bwait\(\)|\bacquire\(\)|\bWAITING\b|every thread is waiting")


def hint(rubric: Rubric, topic: str) -> str:
    """' Hint N of the handout: “…”' for the lab's hint on `topic`, or "" where it has none."""
    number = rubric.hints.get(topic)
    text = rubric_mod.hint(rubric.lab, number) if number else ""
    return f"\n\nHint {number} in the handout: {text}" if text else ""


_THREW = ("Failed: your put or take threw an exception (named below) instead of handing over a connection. "
          "A handoff's methods must wait, never give up.")
# A failing verdict's start -> (what it tells the student, the hint topic). The first match wins.
_VIOLATIONS = [
    ("violation:EventuallyTaken", "Failed: the threads keep running, yet no connection is handed over: a loop that "
     "never ends (a livelock), or a thread spinning while it holds the lock.", "spin"),
    ("violation:NoInvented", "Failed: a worker took a connection that was never accepted (null). A woken "
     "thread went on without checking its condition again, a slot was read or written outside the lock that "
     "guards it, or a `take` gave up and returned null when its search found nothing (another worker can take the "
     "item it was heading for: it must search on): the interleaving below shows which.", "invented"),
    ("violation:NoDuplicate", "Failed: one connection was taken twice: two workers read the same slot before either "
     "cleared it. The interleaving below shows the two reads.", "duplicate"),
    ("violation:NoLoss", "Failed: accepted connections never reached a worker: a `put` returned without storing its "
     "connection, or a slot was overwritten before it was taken.", "loss"),
    ("violation:Bounded", "Failed: your handoff held more connections than its capacity (the check below says "
     "how many, in room for how many). A `put` into a full handoff must wait for room, and a woken `put` must look "
     "again for room before it puts: with it full and two acceptors waiting, one `take` makes room for one. Nothing "
     "was lost here, so only the count of what it holds shows it.", "overfull"),
    ("violation:LostWakeup", "Failed: a thread slept on beside what it waits for — a worker slept on beside a "
     "connection nobody took (both workers waiting on an empty handoff, two `put`s in a row, one worker woke), or "
     "an acceptor slept on beside free room (both acceptors waiting on a full handoff, two `take`s in a row, one "
     "acceptor woke); the check below says which. A notify sent only when the handoff stops being empty (or full) "
     "wakes one thread for what may be several items or slots: a **lost wake-up** that a busy server never recovers "
     "from. Wake the waiters after every change.", "deadlock"),
    ("violation:Threw", _THREW, ""),
    ("violation:FollowsSpec", "Failed: one run of your class is no behaviour of {design}'s design, even if it lost "
     "nothing: below, the first call no order of the calls' effects explains is marked — {rule}.", ""),
    ("violation:Linearizable", "Failed: Lincheck found an interleaving whose results no sequential handoff can give "
     "— a worker got a connection nobody put, or one twice. Read the interleaving below from top to bottom.",
     "duplicate"),
]


# The calendar store's lab: requests on events, not connections in a handoff.
_STORE = {
    "violation:Linearizable": (
        "Failed: Lincheck found an interleaving whose results no ordering of the requests, run one at a time, "
        "gives: a deleted event came back, a move told \"deleted\" took effect anyway, two deletes both "
        "succeeded, or one change was lost. Read the interleaving below from top to bottom, and find the "
        "request that looks at the event, or changes it, without holding the event's lock.", "unlocked"),
    "violation:LockedPerEvent": (
        "Failed: with one request for an event held half way (at its commit, inside `publish` or `unpublish`), "
        "another request for the same event went through instead of waiting for it: a `modify` or a `delete` "
        "changes the event without holding the event's lock. The steps below show which request did.", "unlocked"),
    "violation:IndependentEvents": (
        "Failed: your store's answers are right, but a request for one event waited for a request for another "
        "event: one lock for the whole store (a `synchronized` method, a lock field of the store) instead of "
        "each event's own lock, `entry.lock`. Users who edit different events should not wait for each other; "
        "that is what the paper's per-entity locks are for.", "coarse"),
    "deadlock": (
        "Failed: the requests hang — none of them can ever finish. A request waits for an event's lock that "
        "is never released: is every `lock()` followed by an `unlock()` in a `finally`, on every path out, "
        "the early `return` of a deleted event too?", "deadlock"),
}


# The database lab: requests that span users, groups, calendars and events, judged by the race probe
# (specs/CalendarEntities.tla's rules) and the lock probe.
_DATABASE = {
    "violation:NoDanglingMember": (
        "Failed: a group lists a user who was deleted. The join was held just after it looked at the user, the "
        "user's delete ran beside it and swept the groups, and then the join published the group with the user in "
        "it. Look at the user, and publish the group, while holding the user's lock: a delete that commits under "
        "that lock then comes wholly before the join or wholly after it.", "unlocked"),
    "violation:NoOrphanEvent": (
        "Failed: an event, or its calendar, outlives its owner. The add was held just after it looked at the "
        "calendar's owner, the owner's delete ran beside it and removed the calendar, and then the add wrote the "
        "calendar back with its event. Look at the calendar, and publish it, while holding the calendar's lock: "
        "the delete takes that lock too before it removes the calendar.", "unlocked"),
    "violation:OneOfTheOrderings": (
        "Failed: a user was told something no ordering of the two requests gives: the delete was told it was done "
        "and the user, or the user's calendar, is still there. Does your delete commit (unpublish the user) under "
        "the user's lock, after checking that the user is there, and then sweep its groups and calendar?",
        "unlocked"),
    "violation:IndependentEntities": (
        "Failed: your database's answers are right, but a request for one user waited for a request for another "
        "user, group and calendar: one lock for the whole database (a `synchronized` method, a lock field of your "
        "class) instead of each entity's own lock, `entry.lock`. Users who touch different entities should not "
        "wait for each other; that is what the paper's per-entity locks are for.", "coarse"),
    "deadlock": (
        "Failed: the requests hang — each waits for a lock the other holds, or for one never released. Take locks "
        "in the one order (users, then groups, then calendars, then events) in every request, and release each in "
        "a `finally`, on every way out of the method.", "deadlock"),
}


# Lincheck's races are all on one event: two lock objects taken in them are two locks of that one event
_LOCK_TAKEN = re.compile(r"\b(\w+)#(\d+)\.(lock|lockInterruptibly|tryLock)\(")
_TWO_LOCKS = (
    "Failed: Lincheck found an interleaving whose results no ordering of the requests, run one at a time, gives. "
    "Both requests were for one event, and each held a lock, but not the same one: {locks}. Two users who reach "
    "an event at once each made a lock of their own for it (a lock made on first use, by a look and then a put), "
    "so neither waited for the other. Read the interleaving below from where each one makes its lock.")
_STORE_THREW = (
    "Failed: a request threw `{exception}` (its steps are below) instead of answering OK, DELETED or GONE. Two "
    "users' requests at once used something that is safe for one thread only{why}.")
_STORE_THREW_WHY = {"ConcurrentModificationException": ": a `HashMap` that one request changed while the other was "
                    "changing it (its `computeIfAbsent` notices, and throws)"}


# The DHT lab's completion queue: buffers and replies, judged by the reply probe.
_QUEUE = {
    "violation:AwaitSound": (
        "Failed: a buffer went back to the pool before its reply was out. The header handler reads the next "
        "request into it at once, and the writer then sends that request's values as the reply of the first: a "
        "find returns values it never found (the spec's `DistEarlyRelease`). Give a buffer back only once its "
        "`sent` future is done.", "early"),
    "violation:NoDuplicate": (
        "Failed: a buffer went back to the pool twice, so two requests would be read into it at once. Does a "
        "buffer leave your queue when you give it back?", "early"),
    "deadlock": (
        "Failed: with every reply out, a buffer never came back, or the service thread still waited. Each one "
        "lost makes the pool smaller, and once it is dry every origin waits for ever (the spec's "
        "`DistOverwrite`). When more than q replies are in flight, wait for the oldest: never drop it; and in "
        "`idle()`, give back every buffer whose reply is out.", "kept"),
    # the depth probe: every reply held back, within the depth, before idle() and after it
    "violation:WaitsWithinDepth": (
        "Failed: the service thread waited for a reply while no more than q were in flight. Waiting is right only "
        "past the depth: up to q replies stay with the writer while the service thread reads the next request (the "
        "paper's cure for a handler that waited 40 % of its time). If it waited only after `idle()`, look at what "
        "`idle()` changes besides giving buffers back.", "slow"),
    # the depth probe past the depth: waiting for the oldest reply is right there, napping and looking again is not
    "violation:PollsForReply": (
        "Failed: past its depth the service thread waited for the oldest reply by napping and looking again. Wait "
        "to be told instead: `join()` on the reply's future returns the moment the writer is done, where each nap "
        "costs a millisecond against microseconds for a reply (on a busy machine, where every reply is late, the "
        "naps hide; the probe counts them).", "slow"),
}


def explain(verdict: dict, rubric: Rubric, class_kind: str | None = None) -> str:
    """The feedback for a checker's failing verdict; `class_kind`: the catalog's kind of the class, if it
    is no handoff (a calendar store, a DHT completion queue)."""
    v, seen = verdict["verdict"], verdict.get("trace", "") + "\n" + verdict.get("detail", "")
    own = {"store": _STORE, "queue": _QUEUE, "database": _DATABASE}.get(class_kind or "", {})
    if class_kind == "store" and v == "violation:Linearizable":
        told = _store_race(seen)
        if told:
            return told[0] + hint(rubric, told[1])
    if v in own and "Exception #" not in seen:
        text, topic = own[v]
        return text + (f" — {verdict['detail']}" if class_kind == "queue" and verdict.get("detail") else "") \
            + hint(rubric, topic)
    if v == "deadlock":
        text, topic = _hang(seen)
    elif v.startswith("violation:Linearizable") and "Exception #" in seen:
        text, topic = _THREW, ""
    else:
        text, topic = next(((t, k) for start, t, k in _VIOLATIONS if v.startswith(start)), (f"Failed: {v}", ""))
        if v.startswith("violation:FollowsSpec"):  # trace validation says which design, and what it forbids
            text = text.format(design=verdict.get("design", "the handoff"), rule=verdict.get("rule", "see below"))
    if v.startswith(("violation:NoDuplicate", "violation:NoLoss", "violation:Bounded")) or not topic:
        text += f" — {verdict['detail']}" if verdict.get("detail") else ""  # counts and the trial's shape
    return text + hint(rubric, topic)


def _store_race(seen: str) -> tuple[str, str] | None:
    """A calendar store's Lincheck race told by what its steps show, with its hint topic: a request that threw
    (named), or two lock objects taken for the one event; None for the store's own text (a look without the lock)."""
    thrown = re.search(r"\b(\w+(?:Exception|Error)) #", seen)
    if thrown:
        why = _STORE_THREW_WHY.get(thrown[1], "")
        return _STORE_THREW.format(exception=thrown[1], why=why), "two_locks" if why else ""
    locks = sorted({f"{m[1]}#{m[2]}" for m in _LOCK_TAKEN.finditer(seen)})
    if len(locks) > 1:
        return _TWO_LOCKS.format(locks=" and ".join(f"`{lock}`" for lock in locks)), "two_locks"
    return None


def _hang(seen: str) -> tuple[str, str]:
    """A hang's feedback and hint topic, from what the counterexample shows: threads that wait for
    ever are not threads that spin for ever, and neither tells a lost wake-up from a dropped item."""
    head = "Failed: the threads hang — none of them can ever finish. "
    if "before any take returned" in seen or "not one connection was handed over" in seen:  # trace, stress
        return head + ("Not one connection was handed over: every thread waited before a single `take` "
                       "returned. Read the condition each `put` and each `take` waits on, with the buffer "
                       "empty and with room in it, and check that a `put` wakes the takes waiting for it."), ""
    if _SPINS.search(seen):
        return head + ("A thread is caught in a loop it never leaves: it spins on a condition no other thread "
                       "can make true — a probe sequence that never reaches the slot it needs, or a busy-wait "
                       "nobody ends."), "spin"
    if _WAITS.search(seen):
        return head + ("Every thread waits, and nobody is left to wake it. Look at what each one waits for: a "
                       "**lost wake-up** (a `notify()` or `signal()` that woke a thread waiting for another "
                       "reason, so the one that could go on sleeps for ever), or a `put` that returned without "
                       "storing its connection, so a `take` waits for one that never comes. The interleaving "
                       "below shows who waits, and the last wake-up."), "deadlock"
    return head + ("The checker saw no trace to tell which of these it is: every thread waiting (a **lost "
                   "wake-up**, or a `put` that returned without storing its connection) or a thread spinning in "
                   "a loop it never leaves (a probe sequence that misses slots, a busy-wait)."), "deadlock"
