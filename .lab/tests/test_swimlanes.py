"""The one counterexample view renders as the book shows it."""
from handofflab.swimlanes import Step, Swimlane


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
