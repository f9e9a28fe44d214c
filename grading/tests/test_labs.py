"""Every lab: a handout that is also a book chapter, a starter, public tests, a hint
trail and a rubric of 10 points; its reference solution gets full marks, its known-buggy
samples the marks they deserve, every time, and its starter what a starter deserves."""
import json
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest

import grader
from grader import budgets
from handofflab.ground import paths

SAMPLES = Path(__file__).parent / "submissions"
LABS = sorted(p.parent.name for p in paths.LABS.glob("*/rubric.toml"))


COURSE = ("buffer", "pht", "pipes-spec", "server", "mutants", "calendar", "database", "dht")


def test_the_course_has_its_eight_labs_in_order():
    assert LABS == sorted(COURSE)
    summary = (paths.BOOK / "src" / "SUMMARY.md").read_text()
    order = [summary.index(f"lab-{lab}.md") for lab in COURSE]
    assert order == sorted(order), "the book lists the labs in the course's order"


@pytest.mark.parametrize("lab", LABS)
def test_each_lab_has_handout_starter_public_tests_hints_and_a_rubric(lab):
    folder = paths.LABS / lab
    rubric = tomllib.loads((folder / "rubric.toml").read_text())
    assert sum(t["points"] for t in rubric["test"]) == 10
    assert (folder / "starter" / rubric["file"]).exists()
    assert any(t["name"].startswith("public") for t in rubric["test"])
    assert any(t["name"].startswith("hidden") for t in rubric["test"])
    handout = (folder / "README.md").read_text()
    hints = re.findall(r"^\d+\. ", handout.split("## Hints", 1)[1], re.M)
    assert len(hints) >= 4, "a hint trail, one step at a time"
    chapter = (paths.BOOK / "src" / f"lab-{lab}.md").read_text()
    assert f"labs/{lab}/README.md" in chapter, "the handout is the book chapter"
    for t in rubric["test"]:
        if t["kind"] == "junit":
            assert any(t["method"] in p.read_text() for p in (folder / "public").glob("*.java")), t["method"]


def grade(tmp_path, lab, submission):
    g = grader.grade(lab, submission, tmp_path / "out")
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["score"] == g.score and results["max_score"] == 10
    return [t.score for t in g.tests], (tmp_path / "out" / "report.md").read_text()


def _expected(lab: str, sample: str) -> list[float]:
    """A sample's marks from grading/tests/submissions/expected.toml, the one list of them."""
    from handofflab.commands import verify
    return verify.sample_marks()[lab][sample]


# -- the PHT lab -----------------------------------------------------------------

def test_pht_reference_gets_full_marks(tmp_path):
    scores, report = grade(tmp_path, "pht", SAMPLES / "pht" / "correct")
    assert scores == _expected("pht", "correct") and sum(scores) == 10, report


@pytest.mark.full("a whole grading of the starter (the default tier grades the reference and a slip)", seconds=15)
def test_the_pht_starter_earns_nothing_and_says_why(tmp_path):
    scores, report = grade(tmp_path, "pht", paths.LABS / "pht" / "starter")
    assert scores == _expected("pht", "starter"), report
    assert "TODO" in report and "visit only" in report  # its own TODOs, and the probe sequence it lacks


def test_a_pht_that_steers_its_own_starts_is_refused_by_name(tmp_path):
    """The checks steer ProbeStarts to choose the starts; a submission may draw from it, never steer it (it could
    steer its starts away from the window the checks open)."""
    sub = tmp_path / "steers"
    sub.mkdir()
    src = (SAMPLES / "pht" / "correct" / "StudentPht.java").read_text()
    (sub / "StudentPht.java").write_text(src.replace("        slots = new SynchronizedRef[m];",
                                                     "        ProbeStarts.steer(0);\n        slots = new SynchronizedRef[m];", 1))
    scores, report = grade(tmp_path, "pht", sub)
    assert sum(scores) == 0 and "ProbeStarts.steer" in report, report


@pytest.mark.full("a slip Lincheck catches: the default tier grades the PHT reference, whose grading runs every "
                  "checker of the hidden test, and the refused steering", seconds=30)
def test_pht_read_then_clear_is_caught_by_both_checkers(tmp_path):
    scores, report = grade(tmp_path, "pht", SAMPLES / "pht" / "split_swap")
    assert scores == _expected("pht", "split_swap"), report  # Lincheck finds it every run; the stress run after it only by luck
    assert "taken twice" in report and "| # |" in report


# -- the spec lab ----------------------------------------------------------------

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

# -- the server lab ----------------------------------------------------------------

def _graded_as_an_instructor_would(tmp_path, lab: str, sample: str):
    """The LAB's SAMPLE graded until no test is "not graded, regrade" (a busy machine: the grader's rule), at most
    three times, as an instructor would regrade it; skipped, saying so, if it is pending all three. What each
    grading did grade is the grade a quiet machine gives, and what it did not is worth nothing yet."""
    expected = _expected(lab, sample)
    for attempt in range(3):
        g = grader.grade(lab, SAMPLES / lab / sample, tmp_path / f"out-{attempt}")
        if not g.pending:
            return g
        assert all(t.score == 0 if t.pending else t.score == want for t, want in zip(g.tests, expected)), g.report()
    # beside two busy loops and the suite's other workers (a CI run) a spinning class's stress run finished no
    # trial three times: "not graded, regrade" is then the grader's right answer, and no mark is there to compare
    pytest.skip("the grader said 'not graded, machine too busy' three times (its rule): the marks were not "
                "compared; what it graded matched")


def test_server_reference_serves_exactly_once_and_meets_the_target(tmp_path):
    # Beside the suite's other worker its best ratio can fall short (0.82 seen): the grader then sees the
    # machine's other work and says "not graded, regrade" (the rule's own test is below)
    g = _graded_as_an_instructor_would(tmp_path, "server", "correct")
    scores, report = [t.score for t in g.tests], g.report()
    assert scores == _expected("server", "correct") and sum(scores) == 10, report
    assert "best efficiency" in report and "| 3 |" in report


def test_a_short_efficiency_on_a_busy_machine_is_blamed_on_the_handoff_only_by_what_it_did():
    """A waiting handoff beside another grading once reached 0.82 x the kit's (a false rejection at 0.85). On a
    busy machine a short ratio is "not graded" unless the handoff's own runs show the cause: 2 x the kit's CPU
    for the same requests (it spins), or under half the kit's efficiency; on a quiet one it fails."""
    from types import SimpleNamespace

    from grader.kinds import server
    x, cores = grader.load_rubric("server").server, os.cpu_count() or 1
    busy, quiet = f"{cores * budgets.BUSY_CORES * 2:.2f}", "0.01"

    def verdict(yours, cpu, others, kits=0.94, kits_cpu=1.5):
        rows = [{"design": design, "rep": str(rep), "efficiency": str(eff), "status": "ok", "workers": str(x["workers"]),
                 "slots": str(x["slots"]), "seconds": "1", "bound_seconds": "0.8", "lost": "0", "duplicated": "0",
                 "cpu_s": str(c), "others": others}
                for rep in (1, 2, 3) for design, eff, c in (("SharedBuffer@S", yours, cpu), ("SharedBuffer", kits, kits_cpu))]
        rows += [dict(rows[0], workers=str(x["fill_workers"]), slots=str(x["fill_slots"])) for _ in range(3)]
        result = SimpleNamespace(score=0, max_score=3, output="", pending=False)
        server._efficiency(SimpleNamespace(target=0.85), result, server._Bench(x, None, rows), grader.load_rubric("server"))
        return result

    waited = verdict(0.77, 1.6, busy)                    # short beside other work, its CPU the kit's: not judged
    assert waited.pending and waited.score == 0 and "other work" in waited.output and "regrade" in waited.output
    assert verdict(0.77, 1.6, quiet).output.startswith("Failed:")   # the same on a quiet machine: its own
    spun = verdict(0.5, 7.0, busy)                       # 4.7 x the kit's CPU: its threads ran, load or not
    assert spun.output.startswith("Failed:") and not spun.pending and "4.7 ×" in spun.output and "or spin?" in spun.output
    slept = verdict(0.2, 1.4, busy)                      # a fifth of the kit's: no load did that to a waiting one
    assert slept.output.startswith("Failed:") and not slept.pending and "keep running" not in slept.output
    assert verdict(0.9, 1.6, busy).score == 3             # at the bar: passed, whatever the load


def test_a_server_that_did_not_drain_with_no_loss_proven_is_pending_only_on_a_busy_machine():
    """A full-tier run beside 1.7 of 2 cores of other work failed the spinning sample's exactly-once (42 replies not
    received, the server not drained, its workers still running). ServerBench calls such a run "undrained:" (no
    loss or hang proven by its ledger: see ServersTest.aLostConnectionIsProvenOnlyWhileEveryWorkerWaits); the
    grader regrades it when the jail counted a busy machine, fails it on a quiet one, and fails a proven loss
    whatever the load."""
    from types import SimpleNamespace

    from grader.kinds import server
    x, cores = grader.load_rubric("server").server, os.cpu_count() or 1
    busy, quiet = f"{cores * budgets.BUSY_CORES * 2:.2f}", "0.01"

    def bench(status, others):
        rows = [{"design": design, "rep": str(rep), "efficiency": "0.5", "status": "ok", "workers": str(x["workers"]),
                 "slots": str(x["slots"]), "seconds": "1", "bound_seconds": "0.8", "lost": "0", "duplicated": "0",
                 "cpu_s": "1", "others": others} for rep in (1, 2, 3) for design in ("SharedBuffer@S", "SharedBuffer")]
        rows += [dict(rows[0], workers=str(x["fill_workers"]), slots=str(x["fill_slots"])) for _ in range(2)]
        rows.append(dict(rows[0], status=status, lost="42"))   # the last run of yours, as the bench stops there
        b = server._Bench(x, None, rows)
        result = SimpleNamespace(score=0, max_score=3, output="", pending=False)
        server._exactly_once(None, result, b, grader.load_rubric("server"))
        return b, result

    undrained = ("undrained: the server had not drained 3000 ms after the load; with no loss or hang proven (4 "
                 "connection(s) still queued); 42 replies not received; none duplicated")
    b, _ = bench(undrained, busy)
    assert b.late and b.undrained and not b.failed            # score() makes every server test pending, saying why
    b, result = bench(undrained, quiet)
    assert not b.late and b.failed and result.score == 0 and "undrained:" in result.output
    b, result = bench("NOT exactly once: 42 lost; 0 duplicated; 42 server problems; did not drain", busy)
    assert not b.late and b.failed and result.score == 0      # a proven loss fails on any machine


def test_the_efficiency_verdict_is_the_fastest_run_of_each_side():
    """Stop 34's CI: beside a busy test run, the reference (MonitorBuffer's own code) reached 0.728, 0.740
    and 0.857 against the kit's 0.937, 0.913 and 0.953, and the medians failed it (0.79). Load only adds
    time to a run, so the fastest runs are compared: 0.90, a pass."""
    from grader.kinds import server
    x = grader.load_rubric("server").server
    def row(rep, kits, eff, workers=x["workers"], slots=x["slots"]):
        return {"design": "SharedBuffer" if kits else "SharedBuffer@S", "rep": str(rep), "efficiency": str(eff),
                "status": "ok", "workers": str(workers), "slots": str(slots), "seconds": "1", "bound_seconds": "0.8",
                "lost": "0", "duplicated": "0"}
    rows = [r for rep, (yours, kits) in enumerate([(0.728, 0.937), (0.740, 0.913), (0.857, 0.953)], 1)
            for r in (row(rep, False, yours), row(rep, True, kits),
                      row(rep, False, 0.95, x["fill_workers"], x["fill_slots"]))]
    b = server._Bench(x, None, rows)
    assert b.once and abs(b.ratio - 0.857 / 0.953) < 1e-9 and b.ratio >= 0.85


def test_both_timed_labs_compare_fastest_with_fastest_and_retry_only_a_clean_shortfall():
    """grader/sidebyside.py: one rule for the server lab (efficiency, larger is faster) and the DHT lab
    (µs per value, smaller is faster); a side with no clean run gives 0, never a division by zero."""
    from grader import sidebyside
    from grader.kinds import dht
    assert sidebyside.fastest_ratio([0.5, 0.8], [0.9, 1.0], larger_is_faster=True) == 0.8
    assert sidebyside.fastest_ratio([40.0, 25.0], [20.0, 30.0], larger_is_faster=False) == 0.8
    assert sidebyside.fastest_ratio([], [1.0], True) == 0.0 and sidebyside.fastest_ratio([1.0], [0.0], False) == 0.0
    assert sidebyside.measure_again(0.6, 0.7, clean=True)
    assert not sidebyside.measure_again(0.6, 0.7, clean=False) and not sidebyside.measure_again(0.7, 0.7, clean=True)
    rows = [{"queue": "yours", "ok": True, "us": 50.0}, {"queue": "the kit's", "ok": True, "us": 30.0},
            {"queue": "yours", "ok": True, "us": 40.0}, {"queue": "the kit's", "ok": True, "us": 36.0},
            {"queue": "yours", "ok": False, "us": 1.0}]          # a run that went wrong is no speed
    assert dht._ratio(rows) == 30.0 / 40.0


@pytest.mark.full("a spinning class's stress run fails only after three more, and a busy machine makes the grader regrade it up to three times", seconds=130)
def test_a_spinning_handoff_is_exactly_once_but_too_slow(tmp_path):
    # A spinning class needs the CPU: on a machine busy with other work its stress run can finish no trial while
    # its threads wait for a core, and that is "not graded, regrade" (a CI run saw it), so regrade as an
    # instructor would, at most three times; a grade is then the one a machine with cores to give gives.
    expected = _expected("server", "spinning")
    g = _graded_as_an_instructor_would(tmp_path, "server", "spinning")
    scores, report = [t.score for t in g.tests], g.report()
    assert scores == expected, report
    assert "or spin?" in report and "in 6 runs" in report and "| 6 |" in report  # failed only after 3 more


@pytest.mark.full("a server-lab grading with both TCP loads (about 32 s); the default tier grades the reference and "
                  "the copied unbounded queue", seconds=32)
def test_a_handoff_that_drops_when_the_ring_is_full_loses_requests_on_the_full_load(tmp_path):
    """The efficiency load never fills its 101 slots; the second load (16 workers, 4 slots) does."""
    scores, report = grade(tmp_path, "server", SAMPLES / "server" / "drops_when_full")
    assert scores == _expected("server", "drops_when_full"), report
    assert "fills the ring" in report and "lost" in report


def test_a_copied_unbounded_queue_loses_the_bounded_mark_every_run(tmp_path):
    """The kit's TwoLockQueue renamed StudentHandoff, its size ignored, got 10/10 (issue 47): exactly once and
    fast, and not the bounded handoff the lab asks for. The stress test's first step fills the handoff and
    sees a put return into no room: no race, so every run. Its server runs (3 + 3 of the marks) are the
    correct sample's, graded above; here the public and stress tests alone, twice."""
    light = {**grader.rubric.data("server"),
             "test": [t for t in grader.rubric.data("server")["test"] if t["kind"] != "server"]}
    for run in range(2):
        g = grader.grade("server", SAMPLES / "server" / "copied_two_lock_queue", tmp_path / f"out{run}", rubric=light)
        report = (tmp_path / f"out{run}" / "report.md").read_text()
        assert [t.score for t in g.tests] == _expected("server", "copied_two_lock_queue")[:2], report
        assert "not bounded by the size it was built with" in report and "Hint 5" in report, report


def test_the_server_starter_is_refused_no_server_runs(tmp_path):
    scores, report = grade(tmp_path, "server", paths.LABS / "server" / "starter")
    assert scores == _expected("server", "starter") and "Not run: the public test must pass first" in report, report


def test_a_forbidden_library_is_named(tmp_path):
    sub = tmp_path / "abq"
    sub.mkdir()
    src = (SAMPLES / "server" / "correct" / "StudentHandoff.java").read_text()
    (sub / "StudentHandoff.java").write_text(src[:src.rindex("}")] + (
        "    static final java.util.concurrent.ArrayBlockingQueue<Object> SHORTCUT =\n"
        "            new java.util.concurrent.ArrayBlockingQueue<>(1);\n}\n"))
    scores, report = grade(tmp_path, "server", sub)
    assert scores == [0, 0, 0, 0] and "build it without `java.util.concurrent.`" in report, report


# -- the DHT lab ------------------------------------------------------------------------

# What each DHT sample's report must say.
DHT = {
    "starter": "completed() waited although only 2 replies were in flight",
    "correct": "every value stored, found and deleted exactly once, in every process",
    "drains_when_full": "every value stored, found and deleted exactly once, in every process",
    "early_release": "a buffer went back to the pool before its reply was out",
    "drops_when_full": "a buffer never came back",
    "naps_while_waiting": "by looking again and again: the service thread woke",
    "resets_depth_when_idle": "completed(buffer 2) waited for a reply with 1 in flight, at depth 2, after idle()",
    "releases_twice": "went back to the pool twice: two requests would be read into it at once",
}


@pytest.mark.xdist_group("dht-lab")   # one worker: each grading runs 3 JVMs at a time
@pytest.mark.parametrize("sample", [s if s == "early_release" else pytest.param(
    s, marks=pytest.mark.full("the lab's every sample, the reference too (about 40 s: three JVMs at a time); the "
                              "default tier grades one slip, whose grading runs every check the reference passes",
                              seconds=25)) for s in DHT])
def test_each_dht_sample_gets_its_marks_and_feedback_that_names_its_slip(tmp_path, sample):
    folder = paths.LABS / "dht" / "starter" if sample == "starter" else SAMPLES / "dht" / sample
    scores, report = grade(tmp_path, "dht", folder)
    assert scores == _expected("dht", sample), report
    assert DHT[sample] in report, report
    if scores[4]:  # the runs ran: the table shows each, yours and the kit's in turn
        assert "| 1 | yours |" in report and "| 1 | the kit's |" in report, report
    if sample in ("early_release", "drops_when_full", "releases_twice"):  # the probe's catch is drawn as swimlanes
        assert "| # | service thread | writer |" in report, report


def test_the_dht_labs_probe_is_the_catalogs():
    """The lab's hidden probe checks a student's queue as `./lab check java` checks the kit's: its slips are the
    catalog's Java twins of the spec's, and each fails as catalogued (java/tests/test_java_checks.py runs them)."""
    from handofflab.ground import catalog
    cat = catalog.load()
    checked = {c: t.like for t in grader.load_rubric("dht").tests if t.kind == "checker" for c in t.checkers}
    assert set(checked) == {"replies", "depth"} and set(checked.values()) == {"DepthQueue"}
    assert cat.variant("DepthQueue").class_kind == "queue" and cat.variant("DepthQueue").correct
    queues = [v for v in cat.variants.values() if v.handoff.name == "CompletionQueue"]
    assert {v.name: v.expected("replies") for v in queues} == {
        "DepthQueue": "pass", "EarlyReleaseQueue": "violation:AwaitSound", "OverwriteQueue": "deadlock",
        "IdleResetQueue": "pass"}
    # the depth probe: pipelining by behaviour; the slip it alone sees is safe, so the reply probe passes it
    assert {v.name: v.expected("depth") for v in queues} == {
        "DepthQueue": "pass", "EarlyReleaseQueue": "pass", "OverwriteQueue": "pass",
        "IdleResetQueue": "violation:WaitsWithinDepth"}


# -- the test-writing lab -------------------------------------------------------------


@pytest.mark.full("the reference's suite runs in six JVMs, one per handoff, each with its stress tests (77 s in the "
                  "suite); the default tier grades the lab's starter and a peeking suite", seconds=77)
def test_reference_tests_kill_every_mutant_with_no_false_alarm(tmp_path):
    # Its stress tests time their threads (a 1 s watchdog): beside other work a correct handoff can fail them, which
    # the grader, counting that work, calls "not graded, regrade" rather than a false alarm; so regrade as an
    # instructor would.
    g = _graded_as_an_instructor_would(tmp_path, "mutants", "correct")
    scores, report = [t.score for t in g.tests], g.report()
    assert scores == _expected("mutants", "correct") and sum(scores) == 10, report
    # NoDummyQueue loses a node: the lockstep test or the race's watchdog sees a connection never taken (a full-tier
    # run under load 9-19 saw the watchdog's "nothing moved for 1 s" kill it first)
    killed = re.search(r"Killed `NoDummyQueue`.*?```text\n(.*?)```", report, re.S)
    assert killed and "lost" in killed.group(1), report


def test_a_false_alarm_on_a_busy_machine_is_run_again_and_then_pending(tmp_path, monkeypatch):
    """A student's test with a clock (a 1 s watchdog) can fail a correct handoff from load alone, and a false alarm
    voids every kill: the grader runs a suite that fails a correct handoff once more when the jail counted other
    work keeping the machine busy, and failing again busy is "not graded"; on a quiet machine it is a false alarm, and
    a kill of a buggy handoff stands whatever the load."""
    from types import SimpleNamespace

    from grader.kinds import mutants
    busy = (os.cpu_count() or 1) * budgets.BUSY_CORES * 2
    runs = []

    def junit(jail, cp, scan, reports, props, timeout):
        runs.append(next(p for p in props if "subject" in p))
        run = SimpleNamespace(timed_out=False, others_cores=others)
        return run, [("race", False, "trial 3: nothing moved for 1 s"), ("one", True, "")]

    monkeypatch.setattr(mutants.junit_launcher, "junit", junit)
    ctx = SimpleNamespace(tmp=tmp_path, jail=SimpleNamespace(work=tmp_path))
    for n, others in enumerate((busy, 0.0)):
        ctx.jail.work = tmp_path / str(n)
        ctx.jail.work.mkdir()
        runs.clear()
        outcome = mutants._run_suites(ctx, ["ParallelHashTable", "NoDummyQueue"])
        correct, buggy = outcome["ParallelHashTable"], outcome["NoDummyQueue"]
        assert buggy[0] == "failed"                                   # a kill, busy or not: run once
        if others:
            assert correct[0] == "pending" and "twice" in correct[1] and "nothing moved" in correct[1], correct
            assert len(runs) == 3
        else:
            assert correct[0] == "failed" and len(runs) == 2          # quiet: a false alarm at once


@pytest.mark.full("a mutant-lab grading: the tests run against every mutant", seconds=32)
def test_a_false_alarm_voids_every_kill(tmp_path):
    g = _graded_as_an_instructor_would(tmp_path, "mutants", "false_alarm")  # a busy machine's alarm is no verdict
    scores, report = [t.score for t in g.tests], g.report()
    assert scores == _expected("mutants", "false_alarm"), report
    assert "False alarm: your tests fail `ParallelHashTable`" in report


def test_tests_that_kill_nothing_earn_nothing_and_peeking_is_refused(tmp_path):
    scores, report = grade(tmp_path, "mutants", paths.LABS / "mutants" / "starter")
    assert scores == _expected("mutants", "starter") and "kill no mutant" in report, report
    peek = tmp_path / "peek"
    peek.mkdir()
    src = (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()
    (peek / "HandoffTests.java").write_text(src.replace(
        "h.put(42);", 'h.put(42);\n        if (h.getClass().getSimpleName().startsWith("Notify")) throw new AssertionError();', 1))
    scores, report = grade(tmp_path / "p", "mutants", peek)
    assert scores == [0] * len(scores) and "`java.lang.Class.getSimpleName`" in report, report


# -- the calendar lab ----------------------------------------------------------------------------

# What each calendar sample's report must say: the feedback names what the counterexample shows.
CALENDAR = {
    "starter": "no ordering of the requests",
    "correct": "Passed",
    "sync_entry": "Passed",
    "one_lock": "one lock for the whole store",
    "check_then_lock": "no ordering of the requests",
    "delete_no_lock": "no ordering of the requests",
    "recreate": "a move after the delete is refused",
    "keeps_lock": "waits for an event's lock that is never released",
    "mixed_locks": "no ordering of the requests",
    # below 128 a boxed id is one cached object; the checks' events are 1000 and up (issue 47)
    "boxed_id": "no ordering of the requests",
}


def _selected(request, test) -> list[str]:
    """The samples of `test` that this run selected (its tier, -k): a batch grades those and no more."""
    return [item.callspec.params["sample"] for item in request.session.items if item.originalname == test]


def _batch(tmp_path_factory, lab: str, samples) -> Path:
    """The named samples of the lab (the starter among them), graded two at a time as an instructor's batch would."""
    subs = tmp_path_factory.mktemp(f"{lab}-subs")
    for name in samples:
        shutil.copytree(paths.LABS / lab / "starter" if name == "starter" else SAMPLES / lab / name, subs / name)
    out = tmp_path_factory.mktemp(f"{lab}-out")
    grader.grade_batch(lab, subs, out, jobs=2)
    return out


@pytest.fixture(scope="module")
def calendar_batch(tmp_path_factory, request):
    return _batch(tmp_path_factory, "calendar",
                  _selected(request, "test_each_calendar_sample_gets_its_marks_and_feedback_that_names_its_slip"))


# The default tier grades a slip Lincheck catches (its grading runs every check the reference passes); the full tier
# every sample, the reference too, in one batch.
BATCH_FULL = "the lab's every sample, the reference too, graded in one batch (the default tier grades one slip)"


@pytest.mark.xdist_group("calendar-batch")  # one worker, so the batch is graded once
@pytest.mark.parametrize("sample", [s if s == "check_then_lock" else pytest.param(
    s, marks=pytest.mark.full(BATCH_FULL, seconds=90, unit="calendar-batch")) for s in CALENDAR])
def test_each_calendar_sample_gets_its_marks_and_feedback_that_names_its_slip(calendar_batch, sample):
    results = json.loads((calendar_batch / sample / "results.json").read_text())
    report = (calendar_batch / sample / "report.md").read_text()
    assert [t["score"] for t in results["tests"]] == _expected("calendar", sample), report
    assert CALENDAR[sample] in report, report
    if sample not in ("correct", "sync_entry", "recreate", "one_lock"):  # Lincheck's catches are drawn as swimlanes
        assert "your StudentStore under lincheck" in report and "| # | Thread 1 | Thread 2 |" in report, report
    if _expected("calendar", sample)[-1] == 0:  # and the lock probe's: the held request, and the one sent beside it
        assert "your StudentStore under locks" in report and "| # | user 1 | user 2 |" in report, report
        assert "is held at its commit" in report, report


def test_the_calendar_labs_lincheck_is_the_catalogs(tmp_path):
    """The lab's hidden test checks a student's store as `./lab check java` checks the kit's: the catalogued
    buggy stores are the samples' slips, and each fails as catalogued (java/tests/test_java_checks.py runs them)."""
    from handofflab.ground import catalog
    cat = catalog.load()
    like = next(t.like for t in grader.load_rubric("calendar").tests if t.kind == "checker")
    assert cat.variant(like).class_kind == "store" and cat.variant(like).correct
    buggy = {v.name for v in cat.variants.values() if v.handoff.name == like and not v.correct}
    assert buggy == {"StoreCheckThenLock", "StoreDeleteNoLock", "StoreRecreate", "StoreOneLock"}
    assert {t.checkers for t in grader.load_rubric("calendar").tests if t.kind == "checker"} == {("lincheck",), ("locks",)}


# -- the database lab ----------------------------------------------------------------
DATABASE = {
    "starter": "a group lists a user who was deleted",
    "correct": "Passed",
    "join_no_user_lock": "a group lists a user who was deleted",
    "add_no_lock": "an event, or its calendar, outlives its owner",
    "delete_group_first": "the requests hang",
    "one_lock": "one lock for the whole database",
    "keeps_lock": "does a refused request keep a lock?",
}


@pytest.fixture(scope="module")
def database_batch(tmp_path_factory, request):
    return _batch(tmp_path_factory, "database",
                  _selected(request, "test_each_database_sample_gets_its_marks_and_feedback_that_names_its_slip"))


@pytest.mark.xdist_group("database-batch")  # one worker, so the batch is graded once
@pytest.mark.parametrize("sample", [s if s in ("correct", "join_no_user_lock") else pytest.param(
    s, marks=pytest.mark.full(BATCH_FULL, seconds=30, unit="database-batch")) for s in DATABASE])
def test_each_database_sample_gets_its_marks_and_feedback_that_names_its_slip(database_batch, sample):
    results = json.loads((database_batch / sample / "results.json").read_text())
    report = (database_batch / sample / "report.md").read_text()
    assert [t["score"] for t in results["tests"]] == _expected("database", sample), report
    assert DATABASE[sample] in report, report
    if _expected("database", sample)[1] == 0:  # the race probe's catch, drawn as swimlanes: the held request, the delete
        assert "your StudentDatabase under races" in report and "| # | user 1 | user 2 |" in report, report
        assert "(the probe holds it there)" in report, report
    elif _expected("database", sample)[2] == 0:  # the lock probe's: the held request and the one for other entities
        assert "your StudentDatabase under locks" in report and "they share no user, group" in report, report


def test_the_database_labs_probes_are_the_catalogs():
    """The lab's hidden tests check a student's database as `./lab check java` checks the kit's: the catalogued
    buggy databases are the samples' slips, and each fails as catalogued (java/tests/test_java_checks.py runs them)."""
    from handofflab.ground import catalog
    cat = catalog.load()
    tests = [t for t in grader.load_rubric("database").tests if t.kind == "checker"]
    assert {t.like for t in tests} == {"CalendarDatabase"} and cat.variant("CalendarDatabase").class_kind == "database"
    buggy = {v.name: v for v in cat.variants.values() if v.handoff.name == "CalendarDatabase" and not v.correct}
    assert set(buggy) == {"DatabaseJoinNoUserLock", "DatabaseAddNoLock", "DatabaseDeleteGroupFirst", "DatabaseOneLock"}
    assert {t.checkers for t in tests} == {("races",), ("races", "locks")}
    # each catalogued slip loses the marks its sample loses: the race probe's, or only the per-entity locks'
    samples = {"DatabaseJoinNoUserLock": "join_no_user_lock", "DatabaseAddNoLock": "add_no_lock",
               "DatabaseDeleteGroupFirst": "delete_group_first", "DatabaseOneLock": "one_lock"}
    for variant, sample in samples.items():
        caught = [all(buggy[variant].expected(c) == "pass" for c in t.checkers) for t in tests]
        assert [m > 0 for m in _expected("database", sample)[1:]] == caught, variant


# -- the samples' expected marks, as data ---------------------------------------------------

def test_every_sample_has_its_expected_marks_and_every_entry_a_sample():
    from handofflab.commands import verify
    marks = verify.sample_marks()
    folders = {(p.parent.name, p.name) for p in (paths.GRADING / "tests" / "submissions").glob("*/*") if p.is_dir()}
    listed = {(lab, name) for lab, samples in marks.items() for name in samples if name != "starter"}
    assert folders == listed
    for lab, samples in marks.items():
        tests = grader.load_rubric(lab).tests
        for name, expected in samples.items():
            assert verify.sample_path(lab, name).is_dir(), (lab, name)
            assert len(expected) == len(tests), (lab, name)


def test_verify_verdicts_counts_agreeing_runs(capsys):
    from handofflab.commands import verify
    assert verify.run(runs=2, busy=1, only="buffer/wrong_package") == 0  # one lab's sample, not every lab's
    assert "2/2" in capsys.readouterr().out
    counted = (verify.OUT / "verdicts-buffer_wrong_package.csv").read_text()  # a part's counts in a file of its own
    assert counted.count("\n") == 2 and "grade,buffer,wrong_package," in counted and ",2,0,2," in counted


def test_verify_verdicts_regrades_a_pending_grading_and_never_counts_it_as_held(monkeypatch, capsys):
    """A grading that says "not graded, regrade" (a busy machine: the server lab's spinning sample beside CI's busy
    loop) is graded again, as an instructor would; pending every time, it is said apart, neither held nor broken;
    a graded test that differs from the claim is a failure however many tests were pending."""
    from handofflab.commands import verify
    claim = verify.sample_marks()["buffer"]["correct"]
    pending = [None, *claim[1:]]
    calls = []
    monkeypatch.setattr(verify, "_once", lambda *a: calls.append(a) and None or (pending if len(calls) < 3 else claim))
    assert verify.run(runs=1, busy=0, only="buffer/correct") == 0 and len(calls) == 3
    out = capsys.readouterr().out
    assert "verify-verdicts: 1 passed, 0 failed" in out and "not fully judged" not in out
    monkeypatch.setattr(verify, "_once", lambda *a: pending)
    assert verify.run(runs=1, busy=0, only="buffer/correct") == 0
    out = capsys.readouterr().out
    assert "0 passed, 0 failed, 1 not fully judged (machine too busy)" in out and "3 times in a row" in out
    monkeypatch.setattr(verify, "_once", lambda *a: [*pending[:-1], claim[-1] + 1])
    assert verify.run(runs=1, busy=0, only="buffer/correct") == 1
    assert "0 passed, 1 failed" in capsys.readouterr().out


def test_verify_verdicts_calls_a_check_with_no_verdict_on_a_busy_machine_unjudged(monkeypatch, capsys):
    """A stress check that finished no trial twice while other work kept the grader's share of the cores busy is
    no verdict by the grader's rule (FastBuffer beside a CI run's two busy loops: 13 069 handoffs in 6 s); on a
    quiet machine the same "incomplete" is a claim broken."""
    import os

    from handofflab.java import javacheck
    from handofflab.commands import verify

    def outcome(stats):
        return lambda v, checker: javacheck.JavaOutcome(v.name, checker, v.expected(checker), "incomplete",
                                                        "no trial finished", 0.0, stats)
    monkeypatch.setattr(javacheck, "check_pair", outcome({"others_cores": 2.0 * (os.cpu_count() or 1)}))
    assert verify.run(runs=1, busy=0, only="stress") == 0
    out = capsys.readouterr().out
    assert "0 passed, 0 failed" in out and "not fully judged (machine too busy)" in out
    monkeypatch.setattr(javacheck, "check_pair", outcome({"others_cores": 0.0}))
    assert verify.run(runs=1, busy=0, only="stress") == 1


def test_verify_verdicts_leaves_no_busy_loop_when_it_is_killed():
    """A verify-verdicts stopped by a signal runs no `finally`: its busy loops end by themselves, even
    one that had not started yet when its parent died."""
    import os
    import subprocess
    import sys
    import time
    parent = subprocess.Popen([sys.executable, "-c", "import time\nfrom handofflab.commands import verify\n"
                               "with verify._busy(1) as loops:\n    print(loops[0].pid, flush=True)\n    time.sleep(120)"],
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    pid = int(parent.stdout.readline())
    state = lambda: (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]  # noqa: E731
                     if Path(f"/proc/{pid}/stat").exists() else "gone")
    assert state() in ("R", "S"), "the loop runs while its parent does"
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30
    while state() not in ("gone", "Z") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert state() in ("gone", "Z"), f"the busy loop {pid} outlived its parent"
