"""The specs layer: TLC's results match the catalog, and the check can fail."""
import dataclasses
import re
import shutil
import subprocess

import pytest

from handofflab.ground import catalog, paths
from handofflab.models import specs, tlc
from handofflab.ground.console import LabError


CI_HANDOFFS = list(dict.fromkeys(v.handoff.name for v in catalog.load().select(None, "ci", checker="tlc")))


@pytest.mark.xdist_group("source-tree")  # on the book's worker: its table of every model is this run's
@pytest.mark.parametrize("handoff", CI_HANDOFFS)
def test_every_ci_model_is_as_catalogued(handoff):
    """One handoff's models a test (a failure names its handoff); together they write the book's table."""
    outcomes = specs.check(handoff=handoff, show_traces=False)
    assert outcomes, f"the catalog lists no TLC models of {handoff}"
    assert [o.name for o in outcomes if not o.matches] == []
    cat = catalog.load()
    for o in outcomes:  # every correct model passes; a buggy one passes only with the catalog's reason
        v = cat.variant(o.name)
        assert (o.got == "pass") == (v.correct or "tlc" in v.why), o


@pytest.mark.xdist_group("source-tree")  # after the handoffs' tests above, on their worker
def test_the_books_table_holds_every_ci_model_once_in_the_catalogs_order():
    for handoff in CI_HANDOFFS:  # what -k left out of this run
        if not all((specs.OUT / "rows" / f"{v.name}.md").exists()
                   for v in catalog.load().select(None, "ci", checker="tlc", handoff=handoff)):
            specs.check(handoff=handoff, show_traces=False)
    table = (specs.OUT / "summary.md").read_text()
    named = re.findall(r"^\| `(\w+)` \|", table, re.M)
    assert named == [v.name for v in catalog.load().select(None, "ci", checker="tlc")]


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
    # Drop notifyAll's effect (in the translation): nobody is ever woken.  The correct model must now deadlock.
    tla = spec_copy / "SharedBuffer.tla"
    text = tla.read_text()
    assert text.count("THEN /\\ waitSet' = {}") == 2
    tla.write_text(text.replace("THEN /\\ waitSet' = {}", "THEN /\\ waitSet' = waitSet"))
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
    assert any(s.thread == "a1" and s.action == "CheckFull ▸ WakePut" for s in lane.steps)  # the acceptor waits
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
    fairness = ("              /\\ \\A p \\in Acceptors : WF_vars(acceptor(p))\n"
                "              /\\ \\A c \\in Workers : WF_vars(worker(c))\n")
    assert fairness in tla.read_text()
    tla.write_text(tla.read_text().replace(fairness, ""))
    result = tlc.run(catalog.load().variant("MonitorBuffer"))
    assert result.verdict == "violation:EventuallyTaken"   # named by re-checking each property alone
    assert result.trace.steps and "stuttering" in result.trace.note


def test_refinement_alone_catches_a_bug(spec_copy):
    # IfBuffer with its invariants removed: only Refines (SharedBuffer refines Handoff) can fail.
    cfg = spec_copy / "IfBuffer.cfg"
    text = re.sub(r"^INVARIANTS .*$", "INVARIANTS TypeOK", cfg.read_text(), flags=re.M)
    cfg.write_text(text.replace("PROPERTIES EventuallyTaken Refines", "PROPERTIES Refines"))
    assert tlc.run(catalog.load().variant("IfBuffer")).verdict == "violation:Refines"


def test_every_design_checks_exactly_once_liveness_and_refinement():
    cat = catalog.load()
    for v in cat.variants.values():
        # a Java-only bug (LifoBuffer) has no model of its own; the DHT's protocol has its own properties
        if v.handoff.name == "Handoff" or not v.cfg or v.handoff.track != "servers":
            continue
        text = v.cfg_file.read_text()
        invariants = re.search(r"^INVARIANTS (.*)$", text, flags=re.M)
        assert invariants and {"TypeOK", "NoDuplicate", "NoInvented", "NoLoss"} <= set(invariants[1].split()), v.name
        assert "PROPERTIES EventuallyTaken Refines" in text, v.name
        assert "SPECIFICATION ServerSpec" in text and "CHECK_DEADLOCK TRUE" in text, v.name
    modules = {h.spec for h in cat.handoffs.values() if h.name != "Handoff" and h.track == "servers"} \
        | {v.module for v in cat.variants.values() if v.handoff.track == "servers" and v.handoff.name != "Handoff"}
    for module in modules:  # a variant's own module (OneMonitorPht) refines the abstract handoff too
        assert "HandoffSpec == INSTANCE Handoff" in (paths.SPECS / f"{module}.tla").read_text(), module


def test_every_design_is_written_in_pluscal_and_its_translation_is_current(tmp_path):
    cat = catalog.load()
    designs = list(dict.fromkeys([h.spec for h in cat.handoffs.values() if h.name != "Handoff" and h.spec]
                                 + [v.spec for v in cat.variants.values() if v.spec]))
    assert len(designs) == 12  # Roussev & Wu's six handoffs, the fast PHT's permits, the fast buffer,
    # Malard & Stewart's protocol, McBride & Ferrell's store and database; the PHT lab's one monitor (a variant's)
    for spec in designs:
        src = paths.SPECS / f"{spec}.tla"
        assert "(* --algorithm" in src.read_text(), f"{spec} has no PlusCal"
        copy = tmp_path / src.name
        shutil.copyfile(src, copy)
        tlc.translate(copy)
        assert copy.read_text() == src.read_text(), f"{spec}.tla: the checked-in translation is not current"


def test_the_dht_protocol_checks_its_three_promises_and_catches_each_slip():
    """Malard & Stewart's protocol: an insert applied once (NoDuplicate), a reply, so HASH_Wait, only after
    it was applied (AwaitSound), HASH_Flush only when every insert was (FlushSound), and no origin left
    waiting for ever (deadlock). Each of the four slips breaks one, and the catalog names which."""
    cat = catalog.load()
    dht = [v for v in cat.variants.values() if v.handoff.track == "dht" and v.cfg]
    for v in dht:
        text = v.cfg_file.read_text()
        assert "INVARIANTS NoDuplicate AwaitSound FlushSound" in text and "CHECK_DEADLOCK TRUE" in text, v.name
        assert "PROPERTIES Refines" in text, v.name
    assert "AbstractTable == INSTANCE AbstractDistributedTable" in (paths.SPECS / "DistributedTable.tla").read_text()
    _each_slip_breaks_one_promise(dht, ("violation:NoDuplicate", "violation:AwaitSound", "violation:FlushSound",
                                        "deadlock"))


def _each_slip_breaks_one_promise(variants, promises):
    """The correct models pass, each slip breaks one of `promises`, and each promise is broken by some slip: a
    promise no slip breaks would be one nothing shows able to fail (the catalog, not this test, names which)."""
    verdicts = {v.name: v.expected("tlc") for v in variants}
    assert all(verdicts[v.name] == "pass" for v in variants if v.correct), verdicts
    slips = {v.name: verdicts[v.name] for v in variants if not v.correct}
    assert set(slips.values()) <= set(promises), slips
    assert set(promises) <= set(slips.values()), f"no slip breaks {set(promises) - set(slips.values())}"


def _slips(design, verdict_prefix="violation:"):
    """The buggy variants of a design whose TLC verdict starts with `verdict_prefix`, from the catalog."""
    return [v.name for v in catalog.load().variants.values()
            if v.handoff.name == design and not v.correct and (v.expected("tlc") or "").startswith(verdict_prefix)]


@pytest.mark.parametrize("name", _slips("DistributedTable"))
def test_the_dht_refinement_alone_catches_each_safety_slip(spec_copy, name):
    """With its invariants removed, the protocol is held only to the abstract distributed table
    (specs/AbstractDistributedTable.tla): each slip is a step that table cannot take."""
    cfg = spec_copy / f"{name}.cfg"
    cfg.write_text(cfg.read_text().replace("INVARIANTS NoDuplicate AwaitSound FlushSound\n", ""))
    assert tlc.run(catalog.load().variant(name)).verdict == "violation:Refines"


def test_the_calendar_store_ends_in_one_of_the_orderings_and_catches_each_slip():
    """McBride & Ferrell's store: what the users were told is what one of the orderings of their requests
    tells them (six for the paper's A, B and C; 120 with two movers and two loaders), a deleted event
    stays deleted, and a load never sees half a move. Each slip breaks one, and the catalog names which."""
    cat = catalog.load()
    store = [v for v in cat.variants.values() if v.handoff.name == "CalendarStore"]
    for v in store:
        text = v.cfg_file.read_text()
        assert "INVARIANTS OneOfTheOrderings NoResurrection WholeLoads" in text, v.name
        assert "PROPERTIES Termination" in text and "CHECK_DEADLOCK TRUE" in text, v.name
    # OneOfTheOrderings, the paper's own criterion, is broken by every slip too: the narrower invariants name it
    # first (test_the_six_orderings_alone_catch_every_calendar_slip, and the told-wrong store below)
    _each_slip_breaks_one_promise(store, ("violation:NoResurrection", "violation:WholeLoads"))


@pytest.mark.parametrize("name", _slips("CalendarStore"))
def test_the_six_orderings_alone_catch_every_calendar_slip(spec_copy, name):
    # With NoResurrection and WholeLoads removed, the paper's own criterion must still refuse each slip:
    # the two narrower invariants only name it earlier, with a shorter trace.
    cfg = spec_copy / f"{name}.cfg"
    text = cfg.read_text()
    assert "INVARIANTS OneOfTheOrderings NoResurrection WholeLoads" in text
    cfg.write_text(text.replace("INVARIANTS OneOfTheOrderings NoResurrection WholeLoads", "INVARIANTS OneOfTheOrderings"))
    assert tlc.run(catalog.load().variant(name)).verdict == "violation:OneOfTheOrderings"


def test_the_six_orderings_compare_what_the_users_were_told(spec_copy):
    # A store that serialises every request but tells the mover "this event was deleted" after it
    # published the move: a load that saw the move puts it before the delete, so no ordering fits.
    tla = spec_copy / "CalendarStore.tla"
    text = tla.read_text()
    published = "                            /\\ exists' = TRUE\n                       ELSE /\\ TRUE\n" \
                "                            /\\ UNCHANGED << exists, event >>\n" \
                "                 /\\ told' = [told EXCEPT ![self] = \"ok\"]"
    assert text.count(published) == 1
    tla.write_text(text.replace(published, published.replace('"ok"', '"deleted"')))
    assert tlc.run(catalog.load().variant("CalendarStore")).verdict == "violation:OneOfTheOrderings"


def test_a_stale_translation_is_caught(spec_copy):
    tla = spec_copy / "ThreadPerClient.tla"
    tla.write_text(tla.read_text().replace("taken[self] := taken[self] + 1;", "taken[self] := taken[self] + 2;", 1))
    assert tlc.stale_translations() == ["ThreadPerClient"]


def test_any_spec_and_cfg_are_checked_from_a_file_of_ones_own(tmp_path):
    """`./lab check specs --file`: the copy an exercise asks for, or a lab's spec in progress, checked by
    TLC with its verdict and counterexample; its PlusCal translated in a scratch copy (the file stays as
    written), Handoff.tla found in specs/. A copy of the correct pipes caught by the mailbox cfg, the
    pipes lab's starter passing it (it checks nothing), and a missing cfg named."""
    kit = (paths.SPECS / "Pipes.tla").read_text().replace("MODULE Pipes", "MODULE MyPipes")
    (tmp_path / "MyPipes.tla").write_text(kit)
    caught = tlc.check_file(tmp_path / "MyPipes.tla", paths.SPECS / "MailboxNoBusy.cfg")
    assert caught.verdict == catalog.load().variant("MailboxNoBusy").expected("tlc") and caught.trace is not None
    shutil.copyfile(paths.LABS / "pipes-spec" / "starter" / "Pipes.tla", tmp_path / "Pipes.tla")
    before = (tmp_path / "Pipes.tla").read_text()
    # the command's exit code is TLC's finding: 1 for the violation, 0 for the pass (it once said 0 to both)
    for spec, code, says in (("MyPipes.tla", 1, "TLC says violation:"), ("Pipes.tla", 0, "TLC says pass")):
        run = subprocess.run([str(paths.ROOT / "lab"), "check", "specs", "--file", str(tmp_path / spec), "--cfg",
                              str(paths.SPECS / "MailboxNoBusy.cfg"), "--quiet"], capture_output=True, text=True)
        assert run.returncode == code and says in run.stdout, (spec, run.returncode, run.stdout + run.stderr)
    assert (tmp_path / "Pipes.tla").read_text() == before  # translated in the scratch copy only
    with pytest.raises(LabError, match="no cfg file"):
        tlc.check_file(tmp_path / "MyPipes.tla")


def test_a_lassos_cycle_is_marked_where_it_starts():
    """A liveness counterexample is a prefix and a cycle; TLC says which state the cycle returns to ("24: Back to
    state"), and the drawn trace marks that row and says which rows repeat (the kit once missed TLC's format and
    drew no cycle at all)."""
    if not (specs.OUT / "NonPrimePht.json").exists():
        specs.check("NonPrimePht", show_traces=False)
    from handofflab.ground.swimlanes import Swimlane
    lane = Swimlane.from_json((specs.OUT / "NonPrimePht.json").read_text())
    assert 1 <= lane.loop_from <= len(lane.steps), lane.note
    md = lane.markdown()
    assert f"| {lane.loop_from} ↻ |" in md and f"Rows {lane.loop_from}–{len(lane.steps)} (↻) then repeat for ever" in md
