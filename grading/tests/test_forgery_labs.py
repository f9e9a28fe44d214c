"""The labs whose submission is a test suite or a spec cannot be gamed: a suite that asks the handoff its name
or counts its runs learns nothing; a spec whose properties read the variant constants, whose algorithm is another
design, left to do, or that brings modules of its own earns nothing; the design gates every configuration's
points; a failure of another kind is not the catalogued catch."""
import re
import sys
from pathlib import Path

import pytest

import grader
from grader import allowlist
from handofflab.ground import paths

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from labgrading import SAMPLES  # noqa: E402


@pytest.mark.full("a mutants-lab grading: every mutant's run", seconds=19)
def test_a_suite_that_asks_the_handoff_its_name_learns_nothing(tmp_path):
    """String.valueOf(Subject.create()) used to name the class (…NotifyBuffer@…)."""
    src = (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()
    sub = tmp_path / "named"
    sub.mkdir()
    body = ('    @org.junit.jupiter.api.Test\n    void byName() {\n'
            '        if (String.valueOf(Subject.create()).contains("Notify")) throw new AssertionError("caught by name");\n'
            '    }\n}\n')
    stripped = src[:src.index("    @Test")] + body  # only the name-reading test
    (sub / "HandoffTests.java").write_text(stripped)
    g = grader.grade("mutants", sub, tmp_path / "out")
    assert g.score == 0, g.report()  # it kills nothing, so it earns nothing
    assert "caught by name" not in g.report()


def test_a_suite_that_counts_its_runs_in_a_file_is_refused(tmp_path):
    src = (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()
    sub = tmp_path / "counting"
    sub.mkdir()
    (sub / "HandoffTests.java").write_text(src.replace(
        "h.put(42);", 'h.put(42);\n        try { new java.io.File(System.getProperty("java.io.tmpdir"), "runs").createNewFile(); }'
                      ' catch (java.io.IOException e) { }', 1))
    g = grader.grade("mutants", sub, tmp_path / "out")
    assert g.score == 0 and "`java.io.File" in g.problem and "`java.lang.System.getProperty" in g.problem, g.problem


def test_every_profile_loads_and_every_java_lab_names_one():
    import tomllib
    for name in tomllib.loads(allowlist.POLICY.read_text())["profile"]:
        assert allowlist.load(name).classes, name
    for rubric in paths.LABS.glob("*/rubric.toml"):
        data = tomllib.loads(rubric.read_text())
        if data["file"].endswith(".java"):
            allowlist.load(data.get("api", "handoff"))


# -- the spec lab cannot be gamed ---------------------------------------------------------------


KIT_SPEC = (paths.SPECS / "Pipes.tla").read_text()


def _spec(tmp_path, name, text, extra=()):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "Pipes.tla").write_text(text)
    for file, content in extra:
        (folder / file).write_text(content)
    g = grader.grade("pipes-spec", folder, tmp_path / f"out-{name}")
    return [t.score for t in g.tests], g.report()


def test_properties_that_read_the_variant_constants_are_refused(tmp_path):
    # NoLoss "fails" exactly on the configurations that are buggy, whatever the algorithm does
    gamed = KIT_SPEC.replace("NoDuplicate == \\A i \\in Conns : taken[i] <= 1",
                             "NoDuplicate == \\A i \\in Conns : taken[i] <= 1\nKnown == PipeBlocks \\/ MarkBusy")
    scores, report = _spec(tmp_path, "knobs", gamed)
    assert scores == [0] * 6 and "read `PipeBlocks`, `MarkBusy`" in report, report


PLAIN_QUEUE = """(* --algorithm Pipes
variables
    status = [x \\in Workers |-> "free"], pipe = [x \\in Workers |-> <<>>], accepted = 0, taken = [v \\in Values |-> 0];

fair process acceptor = Acceptor
variables conn = Null, at = 1;
begin
Accept:
    while accepted < NConns do
        accepted := accepted + 1; conn := accepted; at := 1;
Scan:
        if PipeBlocks \\/ (MarkBusy /\\ ~FreeBeforeTake) then   \\* the catalog's bug constants: drop it
            await Len(pipe[1]) < PipeCapacity;
            pipe[1] := Append(pipe[1], conn);
        end if;
        conn := Null;
    end while;
end process;

fair process worker \\in Workers
variables got = Null;
begin
Ready:
    while TRUE do
Read:
        await pipe[self] # <<>>;
        got := Head(pipe[self]); pipe[self] := Tail(pipe[self]); taken[got] := taken[got] + 1;
Serve:
        got := Null;
    end while;
end process;
end algorithm; *)"""


@pytest.mark.full("spec gradings of six TLC configurations each", seconds=23)
def test_an_algorithm_that_is_another_design_earns_nothing(tmp_path):
    """Issue 51's forgery: the kit's properties over a plain queue into worker 1 that drops a connection
    exactly when the catalog's bug constants are set. Every crossing agreed (10/10); the refinement check
    (specs/PipesRefinement.tla) sees its first write skip the busy flag, a step the design cannot take."""
    start, end = KIT_SPEC.index("(* --algorithm"), KIT_SPEC.index("end algorithm; *)") + len("end algorithm; *)")
    forged = re.sub(r"(BEGIN TRANSLATION[^\n]*\n).*?(\\\* END TRANSLATION)", r"\1\2",
                    KIT_SPEC[:start] + PLAIN_QUEUE + KIT_SPEC[end:], flags=re.S)
    scores, report = _spec(tmp_path, "plain-queue", forged)
    assert scores == [0] * 6, report
    assert report.count("Not the lab's design") >= 4 and "violation:StepsOfTheDesign" in report, report
    assert "kitPc = {}" in report  # the swimlane ends on the step no control state of the kit's model explains


def test_the_design_gates_every_configurations_points(tmp_path, monkeypatch):
    """Issue 68: an algorithm that is not the pipe design under one configuration kept the points of others (a
    must-pass PipesNoBusy.cfg, say: a real pipe survives a forgotten busy flag, and so does any queue). TLC's runs are
    stood in for: every verdict as the catalog says, the algorithm the design under every configuration but
    Pipes.cfg. Before the design gated every configuration, this earned the must-pass configurations' points."""
    from grader.context import Context
    from grader.kinds import tlc
    from grader.results import Grade, TestResult
    from handofflab.ground import catalog
    rubric = grader.load_rubric("pipes-spec")
    cat = catalog.load()
    monkeypatch.setattr(tlc, "_problem", lambda source, rubric: "")
    labels = ["your spec", "your properties on the kit's algorithm", "the kit's properties on your algorithm",
              tlc.REFINES]
    monkeypatch.setattr(tlc, "_crossed", lambda source, rubric, work: {label: work / label for label in labels})

    def verdict(variant, path, jail, refinement=False):
        if refinement:
            return ("violation:StepsOfTheDesign" if variant.name == "Pipes" else "pass"), "", None
        return variant.expected("tlc"), "", None
    monkeypatch.setattr(tlc, "verdict", verdict)
    monkeypatch.setattr(tlc, "_vacuous", lambda ctx, cat: [])  # its TLC runs stood in too: every property can fail
    source = tmp_path / "Pipes.tla"
    source.write_text("")
    g = Grade("pipes-spec", str(source), [TestResult(t.name, t.points, hidden=t.hidden) for t in rubric.tests])
    tlc.score(Context(rubric, g, tmp_path, type("Jail", (), {"work": tmp_path})(), source))
    assert [t.score for t in g.tests] == [0] * 6, [(t.name, t.score) for t in g.tests]
    assert all("not the pipe design" in t.output or "Not the lab's design" in t.output for t in g.tests), \
        [t.output for t in g.tests]
    assert cat.variant("PipesNoBusy").expected("tlc") == "pass"  # the must-pass configuration the issue named


@pytest.mark.full("two gradings with checkers that run in full", seconds=28)
def test_a_failure_of_another_kind_is_not_the_catalogued_catch(tmp_path):
    """Every property left TRUE, and a stop condition that deadlocks when a connection is lost:
    TLC fails the buggy mailboxes, but with a deadlock, not with NoLoss."""
    lazy = re.sub(r"NoLoss == .*?(?=\nEventuallyTaken)", "NoLoss == TRUE\n", KIT_SPEC, flags=re.S)
    for prop in ("NoDuplicate", "NoInvented"):
        lazy = re.sub(rf"{prop} == .*", f"{prop} == TRUE", lazy)
    lazy = re.sub(r"EventuallyTaken == .*", "EventuallyTaken == TRUE", lazy)
    lazy = lazy.replace("Refines == HandoffSpec!Spec", "Refines == TRUE")
    scores, report = _spec(tmp_path, "deadlock", lazy)
    assert scores == [0] * 6, report
    assert "Not caught as it should be" in report and "`NoLoss`" in report, report


@pytest.mark.full("spec gradings of six TLC configurations each", seconds=20)
def test_properties_alone_with_the_algorithm_left_todo_score_nothing(tmp_path):
    starter = (paths.LABS / "pipes-spec" / "starter" / "Pipes.tla").read_text()
    kit_props = KIT_SPEC.split(grader.TRANSLATION_END, 1)[1]
    todo = starter.split(grader.TRANSLATION_END, 1)[0] + grader.TRANSLATION_END + kit_props
    scores, report = _spec(tmp_path, "todo", todo)
    assert sum(scores) == 0, report


@pytest.mark.full("spec gradings of six TLC configurations each", seconds=35)
def test_modules_beside_the_spec_and_non_standard_extends_are_not_used(tmp_path):
    # a module that would shadow a standard one, and a class TLC could load as an override:
    # they are left out, so the kit's model grades exactly as alone
    beside = [("Naturals.tla", "---- MODULE Naturals ----\n====\n"), ("Pipes.class", "\xca\xfe")]
    scores, report = _spec(tmp_path, "beside", KIT_SPEC, beside)
    assert scores == [2, 2, 2, 2, 1, 1], report
    printing = KIT_SPEC.replace("EXTENDS Integers, Sequences, FiniteSets", "EXTENDS Integers, Sequences, FiniteSets, TLC")
    scores, report = _spec(tmp_path, "tlc", printing)
    assert scores == [0] * 6 and "extends `TLC`" in report, report
    # the list read as TLC reads it: on the next line, after a comment (before: one line was read)
    hidden = KIT_SPEC.replace("EXTENDS Integers, Sequences, FiniteSets",
                              "EXTENDS Integers, Sequences, FiniteSets, (* the usual *)\n        \\* and one more\n        TLC")
    scores, report = _spec(tmp_path, "tlc-next-line", hidden)
    assert scores == [0] * 6 and "extends `TLC`" in report, report


# -- never from the machine's load -------------------------------------------------------------
