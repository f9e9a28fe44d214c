"""models/tla_values.py: TLC's printed values read back, so a counterexample shows what changed, key by key."""
import pytest

from handofflab.models import tla_values


def test_records_functions_sequences_and_sets_read_back():
    v = tla_values.parse('[pc |-> (w1 :> "take" @@ w2 :> "done"), ring |-> <<1, 2>>, free |-> {3, 4}, n |-> -1]')
    assert v == {"pc": {"w1": '"take"', "w2": '"done"'}, "ring": ["1", "2"], "free": tla_values.TlaSet(("3", "4")),
                 "n": "-1"}
    assert tla_values.show(v["ring"]) == "<<1, 2>>" and tla_values.show(v["free"]) == "{3, 4}"


def test_a_change_is_shown_key_by_key():
    old, new = tla_values.parse('(w1 :> "take" @@ w2 :> "done")'), tla_values.parse('(w1 :> "wait" @@ w2 :> "done")')
    assert tla_values.diff("pc", old, new) == [("pc[w1]", '"wait"')]
    assert tla_values.diff("pc", old, old) == []


@pytest.mark.parametrize("text, says", [("<<1, 2", "ends early"), ("[a |-> ]", "ends early"),
                                        ("1 2", "trailing input"), ("§", "cannot read")])
def test_what_is_not_a_value_is_refused_saying_why(text, says):
    with pytest.raises(ValueError, match=says):
        tla_values.parse(text)
