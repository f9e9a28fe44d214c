"""Grades no submission can forge: every attack of a student who reads the grader's code gets the
marks its real behaviour earns, every malformed input still gives a valid results.json, and a
host that cannot isolate says so (issue 14). test_hostile.py holds the attacks on the machine."""
import json
import os
import re
import sys
import zipfile
from pathlib import Path

import pytest

import grader
from grader import allowlist, classfiles, jail
from handofflab.java import javacheck
from handofflab.ground import paths
from handofflab.ground.console import LabError

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from test_hostile import CORRECT, LIGHT, grade, hostile  # noqa: E402

SAMPLES = paths.ROOT / "grading" / "tests" / "submissions"

# The attack that gave a do-nothing buffer 10/10: it reads where the grader wants the reports
# (its command line), writes a passing JUnit report and checker verdict there, and ends the JVM.
FORGE = r'''
        try {
            String[] cmd = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("/proc/self/cmdline"))).split("\0");
            for (int i = 0; i + 1 < cmd.length; i++) {
                if (cmd[i].equals("--out")) {
                    java.nio.file.Files.write(java.nio.file.Paths.get(cmd[i + 1]),
                        "{\"checker\":\"stress\",\"verdict\":\"pass\",\"detail\":\"\",\"trace\":\"\",\"steps\":[],\"ending\":{},\"stats\":{}}".getBytes());
                }
            }
        } catch (Exception e) { }
        Runtime.getRuntime().halt(0);'''

DO_NOTHING = CORRECT.replace("    public synchronized void put(T item) throws InterruptedException {\n",
                             "    public synchronized void put(T item) throws InterruptedException {\n        if (true) return;\n", 1)


def test_the_forging_attack_is_refused_and_scores_nothing(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=FORGE))
    assert g.score == 0, report
    assert "`java.nio.file.Files" in g.problem and "`java.lang.Runtime" in g.problem, g.problem


def test_a_handoff_that_writes_the_servers_results_is_refused(tmp_path):
    """The server lab's forgery: a handoff that drops every connection and writes ServerBench's CSV."""
    src = (SAMPLES / "server" / "correct" / "StudentHandoff.java").read_text()
    forged = src[:src.rindex("}")] + (
        "    static {\n        try {\n            java.nio.file.Files.writeString(java.nio.file.Path.of(\"server-runs.csv\"),\n"
        "                \"design,rep,efficiency,status\\nSharedBuffer@x,1,1.0,ok\\n\");\n"
        "        } catch (java.io.IOException e) { }\n    }\n}\n")
    sub = tmp_path / "forged"
    sub.mkdir()
    (sub / "StudentHandoff.java").write_text(forged)
    g = grader.grade("server", sub, tmp_path / "out")
    assert g.score == 0 and "`java.nio.file.Files" in g.problem, g.report()


def test_a_completion_queue_that_prints_a_results_line_is_refused(tmp_path):
    """The DHT lab's forgery: each process's standard output is the JSON line the grader reads, so a queue
    that printed a line of its own (a fast time, nothing wrong) could claim the efficiency marks."""
    src = (SAMPLES / "dht" / "naps_while_waiting" / "StudentCompletionQueue.java").read_text()
    forged = src.replace("    @Override\n    public void idle()", (
        "    static {\n        Thread t = new Thread(() -> {\n            while (true) {\n"
        "                System.out.println(\"{\\\"id\\\": 0, \\\"wrong\\\": 0, \\\"barrier_us_per_value\\\": [1, 1, 1]}\");\n"
        "                Thread.onSpinWait();\n            }\n        });\n        t.setDaemon(true);\n        t.start();\n    }\n\n"
        "    @Override\n    public void idle()"), 1)
    assert forged != src
    sub = tmp_path / "forged"
    sub.mkdir()
    (sub / "StudentCompletionQueue.java").write_text(forged)
    g = grader.grade("dht", sub, tmp_path / "out")
    assert g.score == 0 and "`java.lang.System.out" in g.problem, g.report()


# Issue 68's attack on the database lab: the starter (no lock anywhere), plus the two answers its judge read from
# the submission itself — no problems, and a group that hides members who are no longer users. It got 10/10.
ANSWERS_FOR_THE_JUDGE = """
    @Override
    public java.util.List<String> problems() {
        return java.util.List.of();
    }

    @Override
    public java.util.Optional<handofflab.calendar.Event> group(int id) throws IOException {
        return super.group(id);
    }
"""


def _with_methods(lab: str, file: str, methods: str, tmp_path: Path) -> Path:
    src = (paths.LABS / lab / "starter" / file).read_text()
    sub = tmp_path / "answers"
    sub.mkdir()
    (sub / file).write_text(src[:src.rindex("}")] + methods + "}\n")
    return sub


def test_a_database_that_answers_for_its_judge_does_not_compile_and_is_told_why(tmp_path):
    g = grader.grade("database", _with_methods("database", "StudentDatabase.java", ANSWERS_FOR_THE_JUDGE, tmp_path),
                     tmp_path / "out")
    assert g.score == 0, g.report()
    assert "problems() in StudentDatabase cannot override problems() in DatabaseFolders" in g.problem, g.problem
    assert "grader reads are final: your `StudentDatabase` writes only `join`, `deleteUser` and `addEvent`" in g.problem


def test_a_store_that_answers_for_its_judge_does_not_compile(tmp_path):
    load = ("\n    @Override\n    public java.util.Optional<Event> load(int id) {\n"
            "        return java.util.Optional.empty();\n    }\n")
    g = grader.grade("calendar", _with_methods("calendar", "StudentStore.java", load, tmp_path), tmp_path / "out")
    assert g.score == 0 and "overridden method is final" in g.problem, g.report()
    assert "writes only `modify` and `delete`" in g.problem, g.problem


def test_a_method_beside_the_labs_own_is_refused_by_name_and_a_private_helper_is_not(tmp_path):
    """The second wall, for a method a later kit might leave open: a visible method that is not the lab's."""
    extra = "\n    public int entities() {\n        return groupIds().size();\n    }\n"
    g = grader.grade("database", _with_methods("database", "StudentDatabase.java", extra, tmp_path), tmp_path / "out")
    assert g.score == 0 and "the method `entities`" in g.problem and "makes its helpers private" in g.problem, g.problem
    listing = classfiles.parse_javap("\n".join([
        "Classfile /x/StudentDatabase.class", "  this_class: #1   // handofflab/labs/database/StudentDatabase",
        "  super_class: #2  // handofflab/calendar/DatabaseFolders",
        "  private int helper(int);", "  public handofflab.calendar.Events$Outcome join(int, int) throws java.io.IOException;",
        "  private static java.lang.String lambda$join$0(int);"]))
    assert listing[0].declared == [("helper", "private int helper(int);"),
                                   ("join", "public handofflab.calendar.Events$Outcome join(int, int) throws "
                                            "java.io.IOException;"),
                                   ("lambda$join$0", "private static java.lang.String lambda$join$0(int);")]
    from grader.submission import _kit_methods_declared
    assert _kit_methods_declared(listing, grader.load_rubric("database")) == []


def test_a_do_nothing_buffer_earns_what_it_does_nothing(tmp_path):
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "StudentBuffer.java").write_text(DO_NOTHING)
    g, report, _ = grade(tmp_path, folder)
    assert g.score == 0, report


def test_a_unicode_escape_does_not_hide_a_call_from_the_bytecode_check(tmp_path):
    # \u0053ystem.exit(0) is System.exit(0) to javac; a pattern on the source text would miss it
    g, report, _ = grade(tmp_path, hostile(tmp_path, static="        \\u0053ystem.exit(0);"))
    assert g.score == 0 and "`java.lang.System.exit" in g.problem, report


def test_the_allow_list_names_each_reference_and_lets_a_textbook_handoff_through(tmp_path):
    classes = [classfiles.ClassFile("A.class", "a/A", "java/lang/Thread", ["java/lang/Thread", "java/io/File"],
                                   [("java/lang/System", "exit"), ("java/lang/Object", "wait"),
                                    ("java/util/concurrent/locks/ReentrantLock", "lock"),
                                    ("java/lang/RuntimeException", "getStackTrace"), ("a/A", "run")])]
    found = allowlist.violations(classes, allowlist.load("handoff"))
    assert any("extends java.lang.Thread" in v for v in found), found
    assert any("`java.io.File`" in v for v in found) and any("`java.lang.System.exit`" in v for v in found)
    assert any("getStackTrace" in v for v in found), found  # a stack trace names the classes that call in
    assert not any("wait" in v or "ReentrantLock" in v for v in found), found
    # The kit's own correct samples use nothing outside their profile (they are graded in test_lab_*.py).


def test_a_lab_rule_is_named_as_the_labs_and_an_unused_import_is_no_use(tmp_path):
    src = (SAMPLES / "server" / "correct" / "StudentHandoff.java").read_text()
    unused = tmp_path / "unused"
    unused.mkdir()
    (unused / "StudentHandoff.java").write_text(src.replace(
        "import handofflab.handoffs.Handoff;", "import handofflab.handoffs.Handoff;\nimport java.util.concurrent.ArrayBlockingQueue;"))
    classes = tmp_path / "c"
    classes.mkdir()
    profile = allowlist.load("handoff", ("java/util/concurrent/",))
    used = [classfiles.ClassFile("S.class", "s/S", "java/lang/Object", ["java/util/concurrent/ArrayBlockingQueue"], [])]
    assert "this lab asks you to build it without `java.util.concurrent.`" in allowlist.violations(used, profile)[0]


# -- reports the grader reads -------------------------------------------------------------

def test_a_report_is_read_only_as_a_regular_file_under_its_cap(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("{}")
    assert grader.read_report(real) == "{}"
    link = tmp_path / "link.json"
    link.symlink_to("/etc/shadow")
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * (grader.budgets.REPORT_CAP + 1))
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for bad in (link, big, fifo, tmp_path / "missing.json"):
        with pytest.raises(grader.MalformedReport):
            grader.read_report(bad)


# -- unpacking -----------------------------------------------------------------------------

def _zip(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return path


def _results(out):
    data = json.loads((out / "results.json").read_text())
    assert {"score", "max_score", "tests", "output"} <= set(data)
    return data


def test_a_zip_bomb_is_refused_at_its_limit_with_a_valid_results_json(tmp_path):
    bomb = _zip(tmp_path / "bomb.zip", [("StudentBuffer.java", CORRECT), ("pad.bin", b"\0" * (64 * 1024 * 1024))])
    assert bomb.stat().st_size < 1024 * 1024
    g = grader.grade("buffer", bomb, tmp_path / "out", rubric=LIGHT)
    assert g.score == 0 and "more than 8 MiB" in g.problem, g.problem
    assert _results(tmp_path / "out")["score"] == 0


def test_too_many_files_and_colliding_names_are_named(tmp_path):
    many = _zip(tmp_path / "many.zip", [(f"f{i}.txt", "x") for i in range(grader.budgets.UNPACK_FILES + 1)])
    g = grader.grade("buffer", many, tmp_path / "o1", rubric=LIGHT)
    assert "more than 200 files" in g.problem, g.problem
    collide = _zip(tmp_path / "collide.zip", [("x", "a file"), ("x/y", "and a folder of the same name"),
                                              ("../up.txt", "out"), ("StudentBuffer.java", CORRECT)])
    g = grader.grade("buffer", collide, tmp_path / "o2", rubric=LIGHT)
    assert g.score == 10, g.report()  # the one file that matters is graded; the rest are left out, not fatal
    assert _results(tmp_path / "o2")["score"] == 10


def test_a_folder_named_like_the_source_is_not_the_source(tmp_path):
    sub = tmp_path / "sub"
    (sub / "StudentBuffer.java").mkdir(parents=True)
    g = grader.grade("buffer", sub, tmp_path / "out", rubric=LIGHT)
    assert g.score == 0 and "no `StudentBuffer.java`" in g.problem, g.problem
    _results(tmp_path / "out")


def test_a_grader_failure_still_writes_a_valid_results_json(tmp_path, monkeypatch):
    def broken(*args):
        raise RuntimeError("a bug in the grader")
    monkeypatch.setattr(grader.kinds.junit, "score", broken)
    g = grader.grade("buffer", SAMPLES / "buffer" / "correct", tmp_path / "out", rubric=LIGHT)
    data = _results(tmp_path / "out")
    assert g.grader_error and data["extra_data"]["grader_error"].startswith("RuntimeError")
    assert data["score"] == 0 and "The grader itself failed, not your code" in data["output"]


# -- isolation levels -------------------------------------------------------------------------

@pytest.mark.skipif(os.environ.get("HANDOFFLAB_ISOLATION") == "weak", reason="every grading is allowed the weak "
                    "level in this run (conftest.py); the refusal is tested in a normal run")
def test_weak_isolation_is_refused_unless_allowed_and_then_said_everywhere(tmp_path, monkeypatch):
    monkeypatch.setattr(jail, "ISOLATION", "not root: no network or file-system isolation")
    with pytest.raises(LabError, match="cannot isolate"):
        grader.grade("buffer", SAMPLES / "buffer" / "correct", tmp_path / "out", rubric=LIGHT)
    # The bytecode check does not depend on the host: the forging attack is refused here too.
    g = grader.grade("buffer", hostile(tmp_path, static=FORGE), tmp_path / "out", rubric=LIGHT,
                     allow_weak_isolation=True)
    data = _results(tmp_path / "out")
    assert g.score == 0 and data["extra_data"]["isolation"].startswith("not root")
    assert "Graded with weak isolation" in data["output"] and "Isolation: not root" in g.report()


def test_hidden_tests_are_hidden_until_published(tmp_path):
    g = grader.grade("buffer", SAMPLES / "buffer" / "does_not_compile", tmp_path / "out")
    shown = {t["name"]: t["visibility"] for t in _results(tmp_path / "out")["tests"]}
    assert {v for n, v in shown.items() if n.startswith("hidden")} == {"after_published"}
    assert {v for n, v in shown.items() if n.startswith("public")} == {"visible"}


# -- the mutants lab cannot be gamed -----------------------------------------------------------

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

def test_a_checker_that_cannot_finish_in_its_budget_is_pending_not_failed(tmp_path, monkeypatch):
    """A budget too small for this machine stands for a machine too busy: the check is tried
    again with twice the budget, then reported as not graded (pending), never as the student's fault."""
    monkeypatch.setattr(grader.budgets, "TEST_SECONDS", 0.5)
    rubric = {**LIGHT, "test": [{"name": "hidden: stress", "kind": "checker", "checker": "stress", "like": "MonitorBuffer", "seconds": 1,
                                 "points": 10}]}
    g = grader.grade("buffer", SAMPLES / "buffer" / "correct", tmp_path / "out", rubric=rubric)
    data = _results(tmp_path / "out")
    assert g.pending and data["extra_data"]["pending"] == ["hidden: stress"]
    assert "too busy" in g.tests[0].output and "regrade" in g.tests[0].output
    # Gradescope shows a test as passed or failed only: the pending one says so in its name and at the top
    assert data["tests"][0]["name"].endswith("NOT GRADED (machine too busy): pending a regrade")
    assert data["output"].startswith("**Not fully graded.** 1 test(s) could not be judged") and "hidden: stress" in data["output"]


def test_a_checker_that_fails_itself_is_pending_not_the_students_fault(tmp_path, monkeypatch):
    """A checker's own failure (Lincheck's "Non-determinism found", its verdict "error") says nothing
    about the class: not graded, regrade. Only "error:Initializer" (the class did not load) is the class's."""
    from grader.kinds import checker as checker_kind
    failed = {"verdict": "error", "detail": "Lincheck failed itself (\"Non-determinism found\")"}
    monkeypatch.setattr(checker_kind, "_verdict", lambda *a, **k: (failed, ""))
    rubric = {**LIGHT, "test": [{"name": "hidden: lincheck", "kind": "checker", "checker": "lincheck", "like": "MonitorBuffer",
                                 "points": 10}]}
    g = grader.grade("buffer", SAMPLES / "buffer" / "correct", tmp_path / "out", rubric=rubric)
    assert g.pending and g.tests[0].score == 0 and g.tests[0].pending, g.report()
    assert "failed itself" in g.tests[0].output and "regrade" in g.tests[0].output


@pytest.mark.parametrize("kit_finishes, other_work", [
    pytest.param(True, 0.0, marks=pytest.mark.full("a stress run waited out, and the kit's run beside it", seconds=20)),
    (True, 1.5),  # the default tier: pending beside other work, the rule a busy CI meets
    pytest.param(False, 0.0, marks=pytest.mark.full("a stress run waited out, and the kit's run beside it", seconds=17))])
def test_a_stress_run_that_finishes_no_trial_is_never_a_pass(tmp_path, monkeypatch, kit_finishes, other_work):
    """A stress trial stopped at its budget is no verdict (it once reported "pass ... each exactly
    once" after 171 handoffs): with no trial finished, the run is "incomplete", tried again with
    twice the seconds. Then the kit's own class is checked the same way: when it finishes on a machine
    nothing else used, the slowness is the submission's (a put that sleeps 1 ms: a failure, named, not
    "pending" on demand, issue 51); when other work kept cores busy meanwhile, or the kit's class cannot
    finish either, the machine was to blame, and the grade is pending. The machine's state is set here
    (test_hostile.py measures it): this suite runs beside other work."""
    from grader.kinds import checker as checker_kind
    if not kit_finishes:
        monkeypatch.setattr(checker_kind, "_kit_finishes", lambda *a, **k: None)
    monkeypatch.setattr(jail.Run, "others_cores", property(lambda run: other_work))
    slow = tmp_path / "slow"
    slow.mkdir()
    src = (SAMPLES / "buffer" / "correct" / "StudentBuffer.java").read_text()
    marker = "public synchronized void put(T item) throws InterruptedException {"
    assert marker in src
    (slow / "StudentBuffer.java").write_text(src.replace(marker, marker + "\n        Thread.sleep(1);", 1))
    rubric = {**LIGHT, "test": [{"name": "hidden: stress", "kind": "checker", "checker": "stress", "like": "MonitorBuffer", "seconds": 0.5,
                                 "points": 10}]}
    g = grader.grade("buffer", slow, tmp_path / "out", rubric=rubric)
    slow_by_itself = kit_finishes and not other_work
    assert g.pending == (not slow_by_itself) and g.tests[0].score == 0, g.report()
    assert "finished no trial, twice" in g.tests[0].output and "incomplete" not in g.tests[0].output[:40]
    assert ("too slow for the stress check" in g.tests[0].output) == slow_by_itself, g.tests[0].output
    assert ("other work on the grading machine kept 1.5 of its" in g.tests[0].output) == bool(other_work)


def test_a_stress_run_starved_by_other_work_is_pending_and_a_slow_or_greedy_class_is_not():
    """Who kept a stress run from finishing a trial: its threads waited for a core longer than they ran while the
    checker's JVM used little of the machine (other work took the cores: pending); a class that sleeps is never
    waiting for a core (its own slowness: a failure); one whose own threads eat every core starved itself."""
    def stats(ran, waited, cpu, wall=10.0, cores=2):
        return {"trial_cpu_s": ran, "trial_runqueue_s": waited, "process_cpu_s": cpu, "wall_s": wall, "cores": cores}
    assert javacheck.starved(stats(ran=5.0, waited=16.8, cpu=12.6, wall=11.2))  # measured beside 5 busy loops
    assert not javacheck.starved(stats(ran=0.3, waited=0.01, cpu=1.0))      # a put that sleeps 1 ms
    assert not javacheck.starved(stats(ran=0.2, waited=0.4, cpu=0.3, wall=1.5))  # the same, in a CI run
    assert not javacheck.starved(stats(ran=0.5, waited=0.8, cpu=0.9, wall=7.0))  # a put that naps, in CI
    assert not javacheck.starved(stats(ran=5.0, waited=12.0, cpu=19.5))     # its own spinning threads
    assert not javacheck.starved(stats(ran=0, waited=0, cpu=0))             # not Linux: not known, not pending
    assert not javacheck.starved({})


@pytest.mark.full("a server-lab grading beside a spinning class", seconds=68)
def test_a_handoff_that_spins_while_the_kits_runs_cannot_slow_them(tmp_path):
    """The server lab's baseline ran in the submission's JVM (issue 51): a handoff whose own threads spin and
    allocate whenever it is idle, i.e. while the kit's MonitorBuffer runs beside it, dropped the kit to 0.3
    efficiency and earned the efficiency marks for a slow handoff. Each run is now a JVM of its own and the
    kit's hold no submitted class: this one (a put that sleeps 2 ms: about a fifth of the bound
    alone; in one JVM with the kit's runs, measured, the kit's fell from 0.94 to 0.68-0.79) is judged against an
    unhindered kit, and fails the efficiency test."""
    src = (SAMPLES / "server" / "correct" / "StudentHandoff.java").read_text()
    marker = "    @Override\n    public synchronized void put(T item) throws InterruptedException {\n"
    assert marker in src
    spinner = """    private static volatile long used = System.nanoTime();
    private static int puts;

    static {
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                long[] junk = new long[0];
                while (true) {
                    if (System.nanoTime() - used > 50_000_000L) {
                        junk = new long[1 << 17];   // idle: burn a core, and the allocator, for whoever runs beside
                    } else {
                        try { Thread.sleep(1); } catch (InterruptedException e) { return; }
                    }
                }
            });
            t.setDaemon(true);
            t.start();
        }
    }

"""
    # slow by its own code (2 ms asleep in every put: about a fifth of the kit's efficiency, far under the bar of a half)
    slow = marker + "        used = System.nanoTime();\n        puts++;\n        Thread.sleep(2);\n"
    sub = tmp_path / "spins_beside"
    sub.mkdir()
    (sub / "StudentHandoff.java").write_text(src.replace(marker, spinner + slow, 1))
    g = grader.grade("server", sub, tmp_path / "out")
    exactly_once, efficiency = _server_tests(g)
    # (its stress test, no concern here, may be pending beside other work: a put that sleeps finishes no trial)
    assert exactly_once.score == exactly_once.max_score and not exactly_once.pending, g.report()
    assert efficiency.score == 0 and not efficiency.pending, g.report()


def test_the_kits_server_runs_are_jvms_without_the_submission(tmp_path):
    """What keeps the judge's measurement apart from the judged, read from the commands the jail runs: every run
    is a JVM of its own with one point, only the submission's runs have its classes on the class path, and the
    two sides take turns. (In one JVM, the class's own threads ran beside the kit's runs.)"""
    from types import SimpleNamespace

    from grader.kinds import server
    rubric = grader.load_rubric("server")
    commands = []

    class Jail:
        def run(self, cmd, timeout, stdin=None):
            commands.append(cmd)
            main = cmd.index("handofflab.servers.ServerBench")
            Path(cmd[main + 1]).write_text("design,rep,efficiency,status,workers,slots\n"
                                           f"{cmd[-1].split(':')[0]},1,0.9,ok,50,101\n")
            return jail.Run(0, "", 0.1, False, False)

    ctx = SimpleNamespace(rubric=rubric, tmp=tmp_path, jail=Jail())
    _, rows = server._bench(ctx)
    runs = int(rubric.server["runs"])
    assert len(commands) == 3 * runs and len(rows) == 3 * runs
    for cmd in commands:
        main = cmd.index("handofflab.servers.ServerBench")
        classpath = cmd[cmd.index("-cp") + 1]
        point = cmd[main + 5:]
        assert len(point) == 1 and cmd[main + 2] == "1", cmd   # one point, one run, per JVM
        assert (str(tmp_path / "classes") in classpath) == ("@" in point[0]), cmd
    assert ["@" in c[-1] for c in commands[:3]] == [True, False, True]   # yours, the kit's, yours on the full ring
    assert [r["rep"] for r in rows] == [str(1 + i // 3) for i in range(3 * runs)]


def _server_tests(g) -> list:
    """The server lab's TCP tests (the `server` kind), beside its public and stress tests."""
    return [t for t, spec in zip(g.tests, grader.load_rubric("server").tests) if spec.kind == "server"]


@pytest.mark.full("server runs that wait out the clients' time limit", seconds=16)
def test_a_reply_later_than_the_clients_wait_is_pending_not_a_loss(tmp_path):
    """A client counts a reply it waited SERVER_REPLY_MS for in vain as lost; on a busy machine a correct
    handoff's reply can come later (a spinning sample did so beside two test runs). The server's ledger
    decides: every connection taken by one worker and served after the client gave up is late, so the
    grade is pending. A worker that holds its 1 000th connection 3.5 s stands for the busy machine."""
    late = tmp_path / "late"
    late.mkdir()
    src = (SAMPLES / "server" / "correct" / "StudentHandoff.java").read_text()
    marker = "public synchronized T take() throws InterruptedException {"
    assert marker in src
    (late / "StudentHandoff.java").write_text(src.replace(marker, """public T take() throws InterruptedException {
        T item = takeNow();
        if (thousandth()) {
            Thread.sleep(3_500);
        }
        return item;
    }

    private static int takes;

    private static synchronized boolean thousandth() {
        return ++takes == 1000;
    }

    @SuppressWarnings("unchecked")
    private synchronized T takeNow() throws InterruptedException {""", 1))
    g = grader.grade("server", late, tmp_path / "out")
    server = _server_tests(g)
    assert g.pending and all(t.pending and t.score == 0 for t in server), g.report()
    assert "later than 3 s" in server[0].output and "regrade" in server[0].output, server[0].output
    assert re.search(r"\| late: \d+ replies came after 3000 ms", server[0].output), server[0].output


@pytest.mark.full("server runs held past their budget", seconds=15)
def test_server_runs_past_their_budget_without_a_loss_are_pending_not_failed(tmp_path, monkeypatch):
    """A hang shows as a request lost within SERVER_REPLY_MS and ends the runs at once; runs
    that are merely slow (a budget too small for this machine) are not graded, never failed."""
    monkeypatch.setattr(grader.budgets, "SERVER_SECONDS", 4)
    g = grader.grade("server", SAMPLES / "server" / "correct", tmp_path / "out")
    server = _server_tests(g)
    assert g.pending and all(t.pending and t.score == 0 for t in server), g.report()
    assert "too busy" in server[0].output and "regrade" in server[0].output


# One case of each rule in the default tier; its other cases (the same rule, another way in) in the full one.
ANOTHER_ANNOTATION = pytest.mark.full("another annotation the same allow-list rule refuses: a compile and a grading",
                                      seconds=6)
ANOTHER_LOCK = pytest.mark.full("another way to the same foreign lock, refused by the same rule: a compile and a grading",
                                seconds=6)


@pytest.mark.parametrize("annotation, named", [
    # reads the JVM's command line (the handoff under test) and fails exactly on the mutants
    ('@org.junit.jupiter.params.ParameterizedTest\n    @org.junit.jupiter.params.provider.CsvFileSource(files = "/proc/self/cmdline")',
     "CsvFileSource"),
    # runs only when the system property names a mutant
    pytest.param('@org.junit.jupiter.api.Test\n    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = '
                 '"handofflab.subject", matches = ".*Notify.*")', "EnabledIfSystemProperty", marks=ANOTHER_ANNOTATION),
    # JUnit converts the string to a PrintStream with new PrintStream(String): a file written
    pytest.param('@org.junit.jupiter.params.ParameterizedTest\n    @org.junit.jupiter.params.provider.ValueSource('
                 'strings = "/tmp/x")', "ValueSource", marks=ANOTHER_ANNOTATION),
])
def test_an_annotation_that_makes_junit_act_is_refused(tmp_path, annotation, named):
    """Annotations are code the Class and member references never show: a file source, a condition on a
    system property, an argument converted to a PrintStream. The allow-list reads them (issue 51)."""
    src = (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()
    sub = tmp_path / "annotated"
    sub.mkdir()
    param = "java.io.PrintStream p" if named == "ValueSource" else "String line" if named == "CsvFileSource" else ""
    body = f"    {annotation}\n    void peek({param}) {{\n        throw new AssertionError(\"caught\");\n    }}\n}}\n"
    (sub / "HandoffTests.java").write_text(src[:src.index("    @Test")] + body)
    g = grader.grade("mutants", sub, tmp_path / "out")
    assert g.score == 0 and f"@org.junit.jupiter.{'params.provider' if 'Source' in named else 'api.condition'}.{named}" \
        in g.problem, g.problem
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("lock, named", [
    ("System.err", "java.lang.System.err"),                       # the checker prints its verdict's line there
    pytest.param("Thread.class", "java.lang.Thread", marks=ANOTHER_LOCK),  # a class literal the submission does not own
    pytest.param("HELD", "java.lang.System.out", marks=ANOTHER_LOCK),      # through a static field of its own
    pytest.param("held()", "java.lang.System.out", marks=ANOTHER_LOCK),    # through a method of its own
])
def test_a_lock_on_an_object_the_grader_uses_is_refused(tmp_path, lock, named):
    """`synchronized (System.err)` held by a daemon thread blocked the checker before its verdict (issue 51);
    a monitorenter names no member, so the allow-list follows each lock back to where it came from."""
    hold = (f"        Thread t = new Thread(() -> {{ synchronized ({lock}) {{ while (true) {{ Thread.onSpinWait(); }} }} }});\n"
            "        t.setDaemon(true);\n        t.start();")
    folder = hostile(tmp_path, static=hold)
    src = (folder / "StudentBuffer.java").read_text()
    (folder / "StudentBuffer.java").write_text(src.replace(
        "    static {", "    static final Object HELD = System.out;\n\n    static Object held() {\n        return System.out;\n"
                       "    }\n\n    static {", 1))
    g, report, _ = grade(tmp_path, folder)
    assert g.score == 0 and f"`synchronized ({named})`" in g.problem, g.problem


def test_a_lock_of_its_own_is_allowed(tmp_path):
    """The other way: its own class literal, a lock object of its own and `this` are what a monitor is made of."""
    folder = hostile(tmp_path, static="        synchronized (StudentBuffer.class) { }\n        Object mine = new Object();\n"
                                      "        synchronized (mine) { }")
    g, report, _ = grade(tmp_path, folder)
    assert g.score == 10 and not g.problem, report


def test_the_annotations_a_test_suite_needs_are_allowed():
    """The closed set is not closed to what a suite uses: the reference suite's @Test and @RepeatedTest."""
    used = set(re.findall(r"@(\w+)", (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()))
    allowed = {a.rpartition("/")[2] for a in allowlist.load("tests").annotations}
    assert {"Test", "RepeatedTest"} <= used and used - {"Override", "SuppressWarnings"} <= allowed


def test_a_suite_that_brings_its_own_subject_is_refused(tmp_path):
    """A class of the submission's own named as the lab's helper replaced it: the suite's own Subject ran no
    kit handoff at all (issue 51). It is refused before anything runs, named."""
    src = (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()
    sub = tmp_path / "shadow"
    sub.mkdir()
    (sub / "HandoffTests.java").write_text(
        src + "\nclass Subject {\n    static handofflab.handoffs.Handoff<Integer> create() { return null; }\n}\n")
    g = grader.grade("mutants", sub, tmp_path / "out")
    assert g.score == 0 and "the class `handofflab.labs.mutants.Subject`" in g.problem, g.problem
    assert "would replace it" in g.problem
