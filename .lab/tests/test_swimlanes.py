"""The one counterexample view renders as the book shows it."""
from handofflab.ground.swimlanes import Step, Swimlane


def lane(changes: list[str]) -> Swimlane:
    return Swimlane("IfBuffer under stress", "stress", "violation:NoInvented", ["acceptor", "worker-1"],
                    [Step("acceptor", "put(1)", changes), Step("worker-1", "take() → null")],
                    ending={"acceptor": "WAITING in IfBuffer.put", "worker-1": "took null"})


def test_a_lane_without_shared_state_has_no_empty_column():
    rows = lane([]).markdown().splitlines()[2:]
    assert rows[0] == "| # | acceptor | worker-1 |" and all(r.count("|") == 4 for r in rows if r.startswith("|"))


def test_a_lane_with_shared_state_shows_it_after_each_step():
    md = lane(["count = 1"]).markdown()
    assert "| # | acceptor | worker-1 | shared state after the step |" in md
    assert "| 1 | `put(1)` |  | count = 1 |" in md and md.splitlines()[-1].endswith("violation:NoInvented |")


def test_the_steppers_frames_fold_the_writes_into_the_state_at_each_step():
    """A checker that reports only writes (Lincheck, stress): the state at row k is every write up to k, and what row k
    changed is its own writes, a rewrite of the same value included; the state at row 1 is not row 2's."""
    t = Swimlane("LateWaiterPht under lincheck", "lincheck", "deadlock", ["T1", "T2"],
                 [Step("T1", "take()", ["waiters = 1"]), Step("T2", "put(1)", ["count = 1", "note"]),
                  Step("T1", "resumes", ["waiters = 1"])])
    f = t.frames()["steps"]
    assert f[0]["state"] == {"waiters": "1"} and f[0]["changed"] == ["waiters"]
    assert f[1]["state"] == {"waiters": "1", "count": "1", "note": ""} and f[1]["changed"] == ["count", "note"]
    assert f[2]["changed"] == ["waiters"] and f[2]["at"] == {"T1": "resumes", "T2": "put(1)"}


def test_a_checker_that_gives_whole_states_has_them_shown_whole():
    """TLC's states are whole: a step's frame is its state, and what changed is what differs from the state before."""
    t = Swimlane("X under TLC", "tlc", "deadlock", ["w1"],
                 [Step("w1", "Take ▸ Done", ["items[0] = Null"], {"items": "<<Null>>", "count": "0"})],
                 initial={"items": "<<1>>", "count": "0"})
    f = t.frames()
    assert f["initial"] == {"items": "<<1>>", "count": "0"}
    assert f["steps"][0]["state"] == {"items": "<<Null>>", "count": "0"} and f["steps"][0]["changed"] == ["items"]
    assert Swimlane.from_json(t.to_json()) == t  # saved and read back whole


def test_the_stepper_carries_its_frames_beside_the_table_and_escapes_what_the_page_would_read():
    """The table stays as it was (a reader without JavaScript keeps it); the frames are inline JSON in which no `$`
    (math to KaTeX), `<` (the end of the script) or backquote survives, and they read back as the trace's frames."""
    import json
    import re
    t = Swimlane("Odd$Name under lincheck", "lincheck", "deadlock", ["T1"], [Step("T1", "f(</script>`$x`)")])
    md = t.stepper_markdown()
    assert t.markdown() in md and md.startswith('<div class="stepper" data-stepper>\n\n') and md.endswith("</div>\n")
    data = re.search(r'<script type="application/json" class="stepper-data">(.*)</script>', md).group(1)
    assert not set("$<>`&") & set(data)
    assert json.loads(data) == t.frames()
