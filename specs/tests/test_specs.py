"""The specs layer: TLC's results match the catalog, and the check can fail."""
import dataclasses
import shutil

import pytest

from handofflab import catalog, paths, specs, tlc
from handofflab.console import LabError


def test_every_ci_model_is_as_catalogued():
    outcomes = specs.check(show_traces=False)
    assert outcomes, "the catalog lists no TLC models"
    assert [o.name for o in outcomes if not o.matches] == []
    cat = catalog.load()
    for o in outcomes:  # every buggy model really fails, every correct one really passes
        assert (o.got == "pass") == cat.variant(o.name).correct, o


def test_a_changed_expectation_makes_the_check_fail():
    cat = catalog.load()
    v = cat.variant("MonitorBuffer")
    wrong = dataclasses.replace(v, expect={**v.expect, "tlc": "deadlock"})
    cat.variants["MonitorBuffer"] = wrong
    [outcome] = specs.check("MonitorBuffer", cat=cat, show_traces=False)
    assert not outcome.matches and outcome.got == "pass"


def test_a_changed_state_count_makes_the_check_fail():
    cat = catalog.load()
    v = cat.variant("IfBuffer")
    cat.variants["IfBuffer"] = dataclasses.replace(v, expect={**v.expect, "states": v.expect["states"] + 1})
    [outcome] = specs.check("IfBuffer", cat=cat, show_traces=False)
    assert not outcome.matches


@pytest.fixture
def spec_copy(tmp_path, monkeypatch):
    """A scratch copy of specs/ that a test may break."""
    shutil.copytree(paths.SPECS, tmp_path / "specs", ignore=shutil.ignore_patterns("tests"))
    monkeypatch.setattr(paths, "SPECS", tmp_path / "specs")
    return tmp_path / "specs"


def test_breaking_the_correct_spec_makes_it_fail(spec_copy):
    # Drop notifyAll's effect: nobody is ever woken.  The correct model must now deadlock.
    tla = spec_copy / "SharedBuffer.tla"
    tla.write_text(tla.read_text().replace("ELSE IF NotifyAll THEN waitSet' = {}", "ELSE IF NotifyAll THEN waitSet' = waitSet"))
    result = tlc.run(catalog.load().variant("MonitorBuffer"))
    assert result.verdict == "deadlock"


def test_a_syntax_error_names_file_and_line(spec_copy):
    tla = spec_copy / "SharedBuffer.tla"
    tla.write_text(tla.read_text().replace("Init ==", "Init == ==", 1))
    with pytest.raises(LabError) as e:
        tlc.run(catalog.load().variant("MonitorBuffer"))
    assert "specs/SharedBuffer.tla:" in e.value.problem and "Traceback" not in e.value.problem


def test_a_cfg_naming_a_missing_property_is_a_clear_error(spec_copy):
    cfg = spec_copy / "MonitorBuffer.cfg"
    cfg.write_text(cfg.read_text().replace("INVARIANTS TypeOK", "INVARIANTS TypeOK NoSuchInvariant"))
    with pytest.raises(LabError) as e:
        tlc.run(catalog.load().variant("MonitorBuffer"))
    assert "NoSuchInvariant" in e.value.problem


def test_an_unknown_model_name_lists_the_known_ones():
    with pytest.raises(LabError) as e:
        catalog.load().variant("NoSuchBuffer")
    assert "MonitorBuffer" in e.value.fix


def test_the_notify_counterexample_is_drawn_as_swimlanes():
    result = tlc.run(catalog.load().variant("NotifyBuffer"))
    lane = result.trace
    assert lane.threads == ["a1", "w1", "w2"]
    assert all(state.startswith("stuck") for state in lane.ending.values())
    assert any(s.thread == "a1" and s.action.startswith("PutCheck ▸ waiting") for s in lane.steps)
    md = lane.markdown()
    assert md.count("\n|") >= len(lane.steps) + 2 and "deadlock" in md


def test_a_buggy_variant_expected_to_pass_must_say_why(tmp_path):
    text = paths.CATALOG.read_text().replace("[variant.why]\nlincheck", "[variant.why]\nnot_lincheck", 1)
    (tmp_path / "catalog.toml").write_text(text)
    with pytest.raises(LabError) as e:
        catalog.load(tmp_path / "catalog.toml")
    assert "without a reason" in e.value.problem


def test_liveness_is_really_checked(spec_copy):
    # Without fairness a thread may stop for ever: TLC must report EventuallyTaken, not pass.
    tla = spec_copy / "SharedBuffer.tla"
    tla.write_text(tla.read_text().replace("Spec == Init /\\ [][Next]_vars /\\ \\A t \\in Threads : WF_vars(Step(t))",
                                           "Spec == Init /\\ [][Next]_vars"))
    result = tlc.run(catalog.load().variant("MonitorBuffer"))
    assert result.verdict == "property:EventuallyTaken"
    assert result.trace.steps and "stuttering" in result.trace.note
