"""Grading the spec lab (pipes-spec): its reference, its starter and its samples get the marks expected.toml
records, every run, and each report says what the sample got wrong."""
import re
import shutil
import sys
from pathlib import Path

import pytest

import grader
from handofflab.ground import paths

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import SAMPLES, _expected, grade  # noqa: E402


def spec(tmp_path, name, text):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "Pipes.tla").write_text(text)
    return folder


KIT_SPEC = (paths.SPECS / "Pipes.tla").read_text()
WRITE = """            if PipeBlocks then
                await Len(pipe[at]) < PipeCapacity;
                pipe[at] := Append(pipe[at], conn);
            else
                pipe[at] := <<conn>>;        \\* a mailbox: the write replaces what is there
            end if;"""


@pytest.mark.full("a whole grading of the kit's own model (six configurations, their crossings with the kit's halves, "
                  "five breakers: about 47 s); the default tier checks it in the student copy (check-lab: every test but "
                  "the crossings) and crosses two configurations with the half-vacuous answer", seconds=47)
def test_spec_lab_reference_is_the_kits_own_model(tmp_path):
    scores, report = grade(tmp_path, "pipes-spec", spec(tmp_path, "kit", KIT_SPEC))
    assert scores == [2, 2, 2, 2, 1, 1], report
    assert "your Pipes.tla with MailboxNoBusy.cfg under TLC" in report and "violation:NoLoss" in report


def test_a_property_that_can_never_fail_earns_no_pass(tmp_path):
    """Honest NoLoss, EventuallyTaken and Refines, but NoDuplicate and NoInvented true of every state: no buggy variant
    the grader crosses breaks those two, so only PropertyBreakers.tla's behaviours can show them vacuous. The catch
    keeps its marks; the pass earns none, and the feedback names both properties with what they let through. (Two of
    the lab's six configurations, for the default tier's time; the full tier grades the sample whole.)"""
    data = grader.rubric.data("pipes-spec")
    data["test"] = [{**t, "points": 5} for t in data["test"] if t["variant"] in ("Pipes", "MailboxNoBusy")]
    g = grader.grade("pipes-spec", SAMPLES / "pipes-spec" / "half_vacuous", tmp_path / "out", rubric=data)
    report = g.report()
    assert [t.score for t in g.tests] == [0, 5], report
    assert "`NoDuplicate` accepts a worker that takes connection 1 twice" in report, report
    assert "`NoInvented` accepts a worker handed nothing" in report and "`NoLoss` accepts" not in report, report


@pytest.mark.full("a whole grading of the spec lab (six configurations, their crossings, five breakers)", seconds=50)
def test_the_half_vacuous_spec_gets_its_marks(tmp_path):
    scores, report = grade(tmp_path, "pipes-spec", SAMPLES / "pipes-spec" / "half_vacuous")
    assert scores == _expected("pipes-spec", "half_vacuous") == [0, 2, 0, 2, 0, 0], report


@pytest.mark.full("five gradings of a spec with one property made vacuous (about 40 s each)", seconds=200)
@pytest.mark.parametrize("prop", ["NoDuplicate", "NoInvented", "NoLoss", "EventuallyTaken", "Refines"])
def test_each_property_is_shown_able_to_fail_by_a_behaviour_of_its_own(prop, tmp_path):
    """The kit's own spec with one property replaced by TRUE: its passes earn nothing, and the feedback names that
    property alone (each behaviour of PropertyBreakers.tla breaks its one property, which the kit's honest
    properties all catch: the reference keeps 10/10 above)."""
    text = re.sub(rf"^{prop} ==.*?(?=^\S)", f"{prop} == TRUE\n", KIT_SPEC, count=1, flags=re.M | re.S)
    assert text != KIT_SPEC
    g = grader.grade("pipes-spec", spec(tmp_path, prop, text), tmp_path / "out")
    named = {p for p in ("NoDuplicate", "NoInvented", "NoLoss", "EventuallyTaken", "Refines")
             if f"`{p}` accepts" in g.report()}
    assert named == {prop}, g.report()
    assert g.score < g.max_score


def test_each_tlc_run_has_a_tmpdir_of_its_own(tmp_path, monkeypatch):
    """SANY copies the standard modules into java.io.tmpdir under fixed names: two TLC runs
    sharing one race on them (a CI run saw 'File does not exist: .../Naturals.tla' and the kit's
    own spec lost 6 points). The grader's parallel runs, and the kit's, each get their own."""
    from grader import jail
    from handofflab.ground import catalog
    from handofflab.models import tlc
    seen = []

    class Jail:
        def run(self, cmd, timeout, stdin=None):
            seen.append(next(a.split("=", 1)[1] for a in cmd if a.startswith("-Djava.io.tmpdir=")))
            return jail.Run(0, "", 0.0, False, False)
    source = spec(tmp_path, "kit", KIT_SPEC) / "Pipes.tla"
    shutil.copyfile(paths.SPECS / "Handoff.tla", source.parent / "Handoff.tla")
    cat = catalog.load()
    for name in ("Pipes", "MailboxNoBusy"):
        assert grader.kinds.tlc.verdict(cat.variant(name), source, Jail())[0] == "error"  # no output: no verdict
    assert len(set(seen)) == 2 and all(Path(d).is_relative_to(source.parent) for d in seen)
    commands = []
    monkeypatch.setattr(tlc.toolchain, "run", lambda cmd, *a, **kw: commands.append(cmd) or
                        type("P", (), {"stdout": "", "stderr": ""})())
    tlc._tlc(cat.variant("Pipes"), cat.variant("Pipes").cfg_file, 1, 10)
    tlc._tlc(cat.variant("Pipes"), cat.variant("Pipes").cfg_file, 1, 10)
    dirs = [next(a for a in c if a.startswith("-Djava.io.tmpdir=")) for c in commands]
    assert len(set(dirs)) == 2


@pytest.mark.full("six TLC configurations on one more spec (the default tier grades the reference and a spec that does not parse)", seconds=33)
def test_a_spec_whose_pipes_overwrite_is_not_the_design_and_earns_nothing(tmp_path):
    """With real pipes, a write that replaces is not the design's append. It once kept the four tests whose
    configurations never write into a full pipe (8/10); the design now gates every configuration's points (issue 68)."""
    assert WRITE in KIT_SPEC
    overwriting = KIT_SPEC.replace(WRITE, "            pipe[at] := <<conn>>;")
    scores, report = grade(tmp_path, "pipes-spec", spec(tmp_path, "overwrite", overwriting))
    assert scores == [0] * 6, report
    # the two configurations that show the step name it; the other four say which configurations those are
    assert report.count("Not the lab's design") == 2 and report.count("nothing counts until it is") == 4, report
    assert "`PipesNoBusy.cfg`, `PipesEarlyFree.cfg` your algorithm is not the pipe design" in report, report


@pytest.mark.full("six TLC configurations on two more specs, and two refusals", seconds=64)
def test_a_coarser_grain_of_the_design_passes_and_a_finer_one_is_named(tmp_path):
    """The refinement check (specs/PipesRefinement.tla) lets one label do several of the design's steps in
    a row (the scan that writes in the same step), not half of one (a write that lets go of conn later)."""
    bare = re.sub(r"(BEGIN TRANSLATION[^\n]*\n).*?(\\\* END TRANSLATION)", r"\1\2", KIT_SPEC, flags=re.S)
    assert "Write:\n" in bare and "            conn := Null;\n" in bare
    scores, report = grade(tmp_path, "pipes-spec", spec(tmp_path, "coarser", bare.replace("Write:\n", "")))
    assert scores == [2, 2, 2, 2, 1, 1], report
    finer = bare.replace("            conn := Null;\n", "LetGo:\n            conn := Null;\n")
    scores, report = grade(tmp_path / "f", "pipes-spec", spec(tmp_path, "finer", finer))
    assert scores == [0] * 6 and report.count("Not the lab's design") == 6, report
    # the starter's variables are what the check reads: one renamed is refused before TLC, with the rule
    renamed = re.sub(r"\bgot\b", "mine", bare)
    g = grader.grade("pipes-spec", spec(tmp_path, "renamed", renamed), tmp_path / "out-renamed")
    assert g.score == 0 and "has no variable `got`" in g.problem, g.report()
    # the refinement module extends the submission: a name it defines is refused, named, before TLC
    clash = bare.replace("Finished ==", "kitPc == 0\nFinished ==")
    g = grader.grade("pipes-spec", spec(tmp_path, "clash", clash), tmp_path / "out-clash")
    assert g.score == 0 and "uses `kitPc`" in g.problem, g.report()


@pytest.mark.full("two more spec gradings of six TLC configurations each", seconds=50)
def test_a_spec_that_checks_nothing_earns_nothing_and_the_starter_neither(tmp_path):
    nothing = re.sub(r"NoLoss == .*?(?=\nEventuallyTaken)", "NoLoss == TRUE\n", KIT_SPEC, flags=re.S)
    nothing = re.sub(r"EventuallyTaken == .*", "EventuallyTaken == TRUE", nothing)
    nothing = nothing.replace("Refines == HandoffSpec!Spec", "Refines == TRUE")
    nothing = nothing.replace("Finished == AllServed /\\ UNCHANGED vars", 'Finished == pc[Acceptor] = "Done" /\\ UNCHANGED vars')
    scores, report = grade(tmp_path, "pipes-spec", spec(tmp_path, "nothing", nothing))
    assert scores == [0] * 6 and "catches none of the buggy variants" in report, report
    scores, report = grade(tmp_path / "s", "pipes-spec", paths.LABS / "pipes-spec" / "starter")
    assert scores == [0] * 6, report


@pytest.mark.full("a spec grading of six TLC configurations", seconds=20)
def test_a_spec_that_does_not_parse_is_named(tmp_path):
    broken = KIT_SPEC.replace("NoDuplicate == \\A i \\in Conns : taken[i] <= 1", "NoDuplicate == \\A i \\in : taken[i]")
    # as a student hands it in: the translation left to the grader (it adds lines above the error)
    broken = re.sub(r"(BEGIN TRANSLATION[^\n]*\n).*?(\\\* END TRANSLATION)", r"\1\2", broken, flags=re.S)
    scores, report = grade(tmp_path, "pipes-spec", spec(tmp_path, "broken", broken))
    assert scores == [0] * 6 and "TLC could not check your spec" in report, report
    # once, not under each of the six configurations, and at the line of the file the student wrote
    # (before: a line of the grader's translated copy, past the end of the submitted file)
    assert report.count("TLC could not check your spec (with any configuration)") == 1, report
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if text.startswith("NoDuplicate =="))
    assert re.search(rf"\bline {line}\b", report), (line, report)


def test_a_spec_in_plain_tla_is_refused_before_tlc_with_the_rule_named(tmp_path):
    """A plain TLA+ module may be a fine spec, but the grader crosses its properties with the kit's algorithm:
    it is refused once, with the rule and where to start, not graded 0 under six configurations."""
    plain = "---- MODULE Pipes ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x + 1\n" \
            "Spec == Init /\\ [][Next]_x\n====\n"
    g = grader.grade("pipes-spec", spec(tmp_path, "plain", plain), tmp_path / "out")
    assert g.score == 0 and not g.grader_error and "has no PlusCal algorithm" in g.problem, g.report()
    assert "starter/Pipes.tla" in g.problem and g.report().count("has no PlusCal algorithm") == 1
    assert all(t.output == "Not graded: your spec breaks a rule of the lab (see above)." for t in g.tests)
