"""The Java layer's checkers: each correct class passes, each buggy class is
caught by the checker the catalog names, and JPF's absence is a visible skip."""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from grader import budgets
from handofflab.docs import book
from handofflab.ground import catalog, paths, toolchain
from handofflab.java import javabuild, javacheck
from handofflab.suite import turns
from handofflab.commands import verify


PAIRS = javacheck.claimed_pairs()
# The pairs whose counterexamples the book draws run on the book's worker (`./lab test` runs on
# every core), so that its build finds them there instead of running them a second time.
DRAWN = set(book.included("java"))


# The default tier checks the pairs the book draws (a catch of every checker but JPF) and the first correct class
# of each checker; the full tier every claimed pair, each a JVM of its own (a few seconds each).
DEFAULT_TIER = DRAWN | {next(f"{v.name}.{c}.md" for v, c in PAIRS if c == checker and v.correct)
                        for checker in dict.fromkeys(c for _, c in PAIRS)}


@pytest.mark.parametrize("variant,checker", [
    pytest.param(v, c, id=f"{v.name}-{c}",
                 marks=[pytest.mark.xdist_group("source-tree")] if f"{v.name}.{c}.md" in DRAWN else
                 [] if f"{v.name}.{c}.md" in DEFAULT_TIER else
                 [pytest.mark.full("every claimed (variant, checker) pair: a checker's JVM each", seconds=4)])
    for v, c in PAIRS])
def test_the_checker_gives_the_catalogued_verdict(variant, checker):
    """One (variant, checker) per test, so a failure names its pair and -k selects it."""
    o = javacheck.check_pair(variant, checker)
    if verify.unjudged_for_load(o):
        with turns.quiet():  # no verdict for the load: once more with the suite's other tests waiting (suite/turns.py)
            o = javacheck.check_pair(variant, checker)
    if o.got == "incomplete" and javacheck.starved(o.stats):  # the grader's rule: not graded, regrade
        pytest.skip(f"{checker} on {variant.java_class}: no verdict twice, its threads starved by other work on this "
                    f"machine (waited {o.stats.get('trial_runqueue_s', 0):.1f} s for a core against "
                    f"{o.stats.get('trial_cpu_s', 0):.1f} s on one): {o.detail}")
    if o.got == "incomplete" and budgets.too_busy(o.stats.get("others_cores", 0)):  # the grader's other rule
        pytest.skip(f"{checker} on {variant.java_class}: no verdict twice while other work kept "
                    f"{o.stats['others_cores']:.1f} of the machine's cores busy (a CI run beside two busy loops once "
                    f"left FastBuffer 13 069 handoffs in 6 s): {o.detail}")
    assert (o.got, o.detail) and o.got == o.expected, f"{checker} on {variant.java_class}: {o.got} ({o.detail})"
    if o.got != "pass":  # a catch leaves a swimlane with its steps
        lane = javacheck.Swimlane.from_json((javacheck.OUT / f"{variant.name}.{checker}.json").read_text())
        md = (javacheck.OUT / f"{variant.name}.{checker}.md").read_text()
        assert lane.steps and lane.verdict == o.got and "reports" in md and md.count("\n|") > 3
        if checker == "stress" and o.got == "deadlock":  # says where each thread waits (a built state's may have ended)
            assert all("WAITING" in where or where == "done" for where in lane.ending.values()), lane.ending
            assert any("WAITING" in where for where in lane.ending.values()), lane.ending


def test_a_check_that_finishes_no_trial_runs_once_more_with_twice_the_time(monkeypatch):
    """As the grader does: a stress run beside other load can finish no trial in its seconds (FastBuffer did, in a CI
    run beside two busy loops: 34 511 of 50 000 connections in 3 s); that is no verdict, so once more with twice the
    time, and a second "incomplete" stays one (reported as no verdict, never as the catalogued result)."""
    v = catalog.load().variant("FastBuffer")
    asked = []

    def run(checker, name, seconds=3.0, timeout=300, tier="ci"):
        asked.append(seconds)
        verdict = "incomplete" if len(asked) < answers else "pass"
        return {"verdict": verdict, "detail": "", "stats": {}, "steps": [], "ending": {}}

    monkeypatch.setattr(javacheck, "run_checker", run)
    monkeypatch.setattr(javacheck, "verdict_swimlane", lambda verdict: None)
    for answers, got in ((2, "pass"), (3, "incomplete")):
        asked.clear()
        assert javacheck.check_pair(v, "stress").got == got
        assert asked == [asked[0], 2 * asked[0]]


def test_a_checker_that_runs_past_its_limit_is_no_verdict_with_the_machines_load_measured(monkeypatch):
    """Lincheck on FastBuffer once ran past its 300 s beside two busy loops and a test run, and verify-verdicts
    reported a checker's failure. A run past the limit is "incomplete" (run once more, as a stress run that
    finished no trial), with the cores other work kept busy measured, for the caller to hold to the grader's bar."""
    from handofflab.ground import toolchain
    v = catalog.load().variant("FastBuffer")
    calls = []

    def run(checker, name, seconds=3.0, timeout=300, tier="ci"):
        calls.append(seconds)
        raise toolchain.TimedOut(f"{checker} on FastBuffer: ran past 300 s", "run it alone")

    monkeypatch.setattr(javacheck, "run_checker", run)
    monkeypatch.setattr(javacheck, "verdict_swimlane", lambda verdict: None)
    o = javacheck.check_pair(v, "lincheck")
    assert o.got == "incomplete" and "ran past 300 s" in o.detail and len(calls) == 2
    assert "others_cores" in o.stats and o.stats["others_cores"] >= 0


def test_every_buggy_class_is_claimed_caught_and_every_correct_one_to_pass():
    cat = catalog.load()
    for v in cat.select(None, "ci"):
        if v.collection or v.table:  # a collection list, a DHT table: Lincheck alone checks it, and must catch each slip
            assert v.expected("lincheck") == ("pass" if v.correct else "violation:Linearizable"), v.name
            continue
        if v.store:  # Lincheck catches every slip of the store's locking but one lock for all, which is no race;
            # stress is claimed only where luck cannot matter; the lock probe is claimed for every store
            coarse = v.expected("locks") == "violation:IndependentEvents"
            assert v.expected("lincheck") == ("pass" if v.correct or coarse else "violation:Linearizable"), v.name
            assert v.expected("stress") is not None or "stress" in v.why, f"{v.name}: a stress claim, or why none"
            assert not v.correct or v.expected("stress") == v.expected("locks") == "pass", v.name
            assert v.expected("locks") is not None, f"{v.name}: the lock probe decides every store every run"
            continue
        if v.queue:  # a DHT completion queue: the reply probe decides its safety, the depth probe its pipelining,
            # every run; each slip is caught by one of them
            assert v.expected("replies") is not None and v.expected("depth") is not None, v.name
            assert (v.expected("replies") == v.expected("depth") == "pass") == v.correct, v.name
            continue
        if v.database:  # the calendar database: the race probe runs the spec's races in the schedule that shows each
            # slip, every run (CI), and JPF explores every interleaving of them; each catches every slip, by the same rule
            # the lock probe decides every database; one lock for all is no race, so only the lock probe catches it
            assert v.expected("locks") is not None, f"{v.name}: the lock probe decides every database every run"
            if v.expected("locks") == "violation:IndependentEntities":
                assert v.expected("races") == "pass" and v.expected("jpf") is None and "jpf" in v.why, v.name
                continue
            assert v.expected("jpf") is not None and (v.expected("jpf") == "pass") == v.correct, v.name
            assert v.expected("races") == v.expected("jpf"), f"{v.name}: the race probe and JPF name the same rule"
            continue
        if not v.java:
            continue
        claims = {c: v.expected(c) for c in ("lincheck", "stress") if v.expected(c) is not None}
        if v.correct:
            assert set(claims.values()) == {"pass"} and set(claims) == {"lincheck", "stress"}, (v.name, claims)
        elif not any(verdict != "pass" for verdict in claims.values()):
            # Missed by every Java checker: allowed only with the catalog's reason for each, and if TLC catches it.
            assert all(c in v.why for c in ("lincheck", "stress")), f"{v.name} caught by no checker"
            # (jcstress: a twin that only the memory model breaks, which every interleaving checker passes)
            assert any(v.expected(c) not in (None, "pass") for c in ("tlc", "trace", "jcstress")), \
                f"{v.name} is caught by no checker at all"


def test_the_sweep_runs_every_claimed_pair_and_reports_them(monkeypatch):
    """`./lab check java` runs the same pairs as the tests above (the checkers stubbed here)."""
    ran, claim = [], {(v.name, c): v.expected(c) for v, c in PAIRS}
    monkeypatch.setattr(javacheck, "run_checker", lambda checker, name, seconds, tier: ran.append((name, checker)) or
                        {"verdict": claim[(name, checker)], "detail": "stub", "stats": {}, "trace": ""})
    monkeypatch.setattr(javacheck, "verdict_swimlane", lambda verdict: None)
    outcomes = javacheck.check(show_traces=False)
    assert sorted(ran) == sorted(claim) and all(o.matches for o in outcomes) and len(outcomes) == len(PAIRS)


@pytest.mark.skipif(bool(os.environ.get("JPF_HOME")), reason="JPF_HOME is set: the real JPF run is tested instead")
def test_without_jpf_home_jpf_is_a_visible_skip_with_how_to_get_it(monkeypatch):
    verdict = javacheck.run_checker("jpf", "NotifyBuffer")
    assert verdict["verdict"] == "skip"
    assert "JPF_HOME" in verdict["detail"] and "never downloads" in verdict["detail"]
    assert "java-17" in verdict["detail"] and "JDK 17" in verdict["detail"]  # the branch that builds on this JDK


def test_a_class_that_is_not_a_handoff_is_checked_only_by_the_checkers_the_catalog_names_for_its_kind():
    """catalog.CLASS_CHECKERS is the one place the rule is written: ./lab and the grader pass it to Java (--checkers),
    which refuses any other checker and keeps no list of its own."""
    cp = javabuild.classpath("checks")

    def main(*args):
        return subprocess.run(["java", "-cp", cp, "handofflab.checks.Main", *args], capture_output=True, text=True,
                              timeout=60)

    kinds = catalog.CLASS_CHECKERS
    refused = main("stress", "LazyList", "--collection", "--checkers", ",".join(kinds["collection"]))
    assert refused.returncode == 2 and "the catalog checks a collection by lincheck; not by stress" in refused.stderr, \
        refused.stderr
    unsaid = main("lincheck", "LazyList", "--collection")
    assert unsaid.returncode == 2 and "--checkers is missing" in unsaid.stderr, unsaid.stderr
    run = main("lincheck", "NoSuchList", "--collection", "--checkers", ",".join(kinds["collection"]))
    assert run.returncode == 0 and "error:Initializer" in run.stdout and "NoSuchList" in run.stdout, run.stdout
    assert javacheck.checker_command("locks", "EventStore", None, Path("v.json"), 1.0, class_kind="store")[-6:-4] == \
        ["--checkers", ",".join(kinds["store"])]
    main_java = (paths.JAVA / "checks" / "src" / "main" / "java" / "handofflab" / "checks" / "Main.java").read_text()
    assert '"stress", "locks"' not in main_java and '"replies", "depth"' not in main_java  # no copy of the rule


def test_every_java_class_has_a_jpf_claim_or_the_reason_there_is_none():
    for v in catalog.load().variants.values():
        if v.java or v.class_kind in ("store", "database"):  # the handoffs, the calendar store and database (their drivers)
            # a claim, or why there is none (a buggy class that JPF rightly passes has both: the loader asks for it)
            assert v.expected("jpf") is not None or "jpf" in v.why, f"{v.name}: a JPF claim, or why there is none"


def test_a_class_that_looks_before_it_sleeps_says_how_often_so_lincheck_reaches_its_sleep():
    """FastBuffer looks YIELDS times before it sleeps; Lincheck cuts a loop at 50 turns by default, and with the loop
    cut the slow path was never explored (LateWaiterBuffer passed). The catalog's spin_looks must be the class's."""
    src = (paths.JAVA / "handoffs" / "src" / "main" / "java" / "handofflab" / "handoffs" / "FastBuffer.java").read_text()
    looks = int(re.search(r"static final int YIELDS = (\d+);", src)[1])
    cat = catalog.load()
    assert cat.variants["FastBuffer"].profile.spin_looks == looks == cat.variants["LateWaiterBuffer"].profile.spin_looks
    assert "spin_looks=50;" in cat.variants["FastBuffer"].profile.arg()


def test_the_jpf_driver_gets_the_catalogs_connections():
    nonprime = catalog.load().variant("NonPrimePht").profile
    assert nonprime.jpf_ids == (3, 1, 7) and "jpf_ids=3/1/7" in nonprime.arg()
    assert catalog.load().variant("MonitorBuffer").profile.jpf_ids == (1, 2)


needs_jpf = pytest.mark.skipif(not os.environ.get("JPF_HOME"), reason="needs JPF_HOME (a jpf-core build); see ./lab doctor")
JPF_CLAIMS = [v for v in catalog.load().variants.values() if v.java_class and v.expected("jpf") is not None]


@needs_jpf
@pytest.mark.parametrize("variant", JPF_CLAIMS, ids=lambda v: v.name)
def test_jpf_gives_the_catalogued_verdict(variant):
    verdict = javacheck.run_checker("jpf", variant.name)
    assert verdict["verdict"] == variant.expected("jpf"), (variant.name, verdict["detail"])
    assert verdict["stats"]["newStates"] > 0


@needs_jpf
def test_jpf_swimlanes_show_the_class_under_check_and_the_shared_state():
    """Before: only lines of *Buffer.java files were kept, and the state column was always empty."""
    lane = javacheck.verdict_swimlane(javacheck.run_checker("jpf", "IfBuffer"))
    assert any("(IfBuffer.java:" in s.action for s in lane.steps)
    assert any("count = -1" in c for s in lane.steps for c in s.changes)  # a take from an empty buffer
    lane = javacheck.verdict_swimlane(javacheck.run_checker("jpf", "SplitSwapPht"))
    assert any("(SplitSwapPht.java:" in s.action for s in lane.steps)
    cleared = [re.search(r"(SynchronizedRef@\d+)\.value = null", c) for s in lane.steps for c in s.changes]
    slots = [m[1] for m in cleared if m]
    assert len(slots) == 2 and slots[0] == slots[1], slots  # both workers empty the same slot


@needs_jpf
def test_a_jpf_run_that_explores_nothing_is_not_a_pass():
    """Before: a driver class JPF could not load gave 0 states and 'pass (every interleaving explored)'."""
    proc = toolchain.run(["java", *javacheck.JPF_JVM, "-cp", javabuild.classpath("checks"), "handofflab.checks.JpfCheck",
                          "handofflab.checks.NoSuchDriver"], "JPF on a class that does not exist", "", timeout=300)
    verdict = json.loads(proc.stdout.strip().splitlines()[-1])
    assert verdict["verdict"] == "incomplete" and "explored no state" in verdict["detail"], verdict


@needs_jpf
def test_the_notify_witness_ends_on_the_jvm_and_deadlocks_under_jpf():
    jvm, jpf = javacheck.notify_witness(runs=200)
    assert jvm == "finished 200/200"
    assert jpf["verdict"] == "deadlock", jpf


CITED = re.compile(r"(.+?)  \((\w+\.java):(\d+)\)(?:; |$)")


def _cited_lines(lane):
    """(action, file, line) for every source line a step names: `code  (File.java:N)`, joined by '; '."""
    for step in lane.steps:
        for m in CITED.finditer(re.sub(r"\.\.\. \d+ lines \.\.\.; ", "", step.action)):
            yield m[1].strip(), m[2], int(m[3])


@pytest.mark.parametrize("recorded", sorted((paths.BOOK / "recorded").glob("*.jpf.json")), ids=lambda p: p.stem)
def test_a_recorded_trace_still_matches_the_source_it_cites(recorded):
    # The book keeps JPF's traces from real runs (CI has no JPF). If a cited line moves or
    # changes, this fails: record it again with JPF_HOME=... ./lab check java NAME --jpf.
    lane = javacheck.Swimlane.from_json(recorded.read_text())
    assert lane.verdict != "pass" and "Recorded from a real run" in lane.note
    cited = list(_cited_lines(lane))
    assert len(cited) >= len(lane.steps) > 5
    subject = recorded.stem.split(".")[0] + ".java"
    assert any(file == subject for _, file, _ in cited), f"no line of {subject}, the class under check"
    assert any(step.changes for step in lane.steps) and lane.ending, "no shared state, or no ending row"
    sources = {p.name: p for p in paths.JAVA.rglob("*.java") if "target" not in p.parts}
    for code, file, line in cited:
        assert sources[file].read_text().splitlines()[line - 1].strip() == code, f"{file}:{line} no longer reads {code!r}"


@needs_jpf
@pytest.mark.parametrize("recorded", sorted((paths.BOOK / "recorded").glob("*.jpf.json")), ids=lambda p: p.stem)
def test_a_fresh_jpf_run_draws_the_recorded_trace(recorded, tmp_path, monkeypatch):
    """Before: this read a file the run never wrote, and passed on a leftover."""
    monkeypatch.setattr(javacheck, "OUT", tmp_path)
    lane = javacheck.Swimlane.from_json(recorded.read_text())
    variant = catalog.load().variant(recorded.stem.split(".")[0])
    outcome = javacheck.check_pair(variant, "jpf")
    assert outcome.got == lane.verdict
    fresh = javacheck.Swimlane.from_json((tmp_path / f"{variant.name}.jpf.json").read_text())
    assert [(s.thread, s.action) for s in fresh.steps] == [(s.thread, s.action) for s in lane.steps]
    assert fresh.ending == lane.ending


def test_classes_claimed_only_for_jpf_say_that_nothing_was_confirmed_without_it(monkeypatch, capsys):
    # No class is claimed for JPF alone since the race and lock probes check the database in CI; without them,
    # CalendarDatabase is such a class again, and a sweep without JPF must not pass it off as confirmed.
    monkeypatch.setattr(catalog, "JAVA_CHECKERS", tuple(c for c in catalog.JAVA_CHECKERS if c not in ("races", "locks")))
    monkeypatch.setattr(javacheck, "run_checker", lambda *a, **kw: pytest.fail("no checker applies without JPF"))
    assert javacheck.check("CalendarDatabase", show_traces=False) == []
    said = " ".join(capsys.readouterr().out.split())
    assert "no checker ran, so nothing was confirmed" in said and "checker results as catalogued" not in said


def test_lincheck_rows_that_ran_inside_the_jdk_fold_into_the_call_the_class_made():
    """Lincheck's detailed table says where each event ran; a row of its short table that ran inside the JDK (a
    ReentrantLock's queue) is part of the call the class made, and the swimlanes show the call alone (issue 85)."""
    trace = """= Invalid execution results =
| modify(1): OK | delete(1): OK |

The following interleaving leads to the error:
| ------------------------------------- |
| Thread 1                | Thread 2      |
| ------------------------------------- |
| modify(1): OK           |               |
|   entry.lock.lock()     |               |
|     sync.lock()         |               |
|       acquire(1)        |               |
|       head = Node#1     |               |
|   publish(1)            |               |
|                         | delete(1): OK |
| ------------------------------------- |

Detailed trace:
| ------------------------------------------------------------------------------------------ |
| Thread 1                                                              | Thread 2      |
| ------------------------------------------------------------------------------------------ |
| modify(1): OK                                                         |               |
|   entry.lock.lock() at StudentStore.modify(StudentStore.java:20)      |               |
|     sync.lock() at ReentrantLock.lock(ReentrantLock.java:322)         |               |
|       acquire(1) at ReentrantLock$Sync.lock(ReentrantLock.java:153)   |               |
|       head = Node#1 at AbstractQueuedSynchronizer.acquire(AbstractQueuedSynchronizer.java:600) | |
|   publish(1) at StudentStore.modify(StudentStore.java:21)             |               |
|                                                                       | delete(1): OK |
| ------------------------------------------------------------------------------------------ |
"""
    lane = javacheck.lincheck_swimlane(trace, "StudentStore under lincheck", "violation:Linearizable")
    assert [(s.thread, s.action) for s in lane.steps] == [
        ("Thread 1", "modify(1): OK"), ("Thread 1", "entry.lock.lock()"), ("Thread 1", "publish(1)"),
        ("Thread 2", "delete(1): OK")]
    assert not any(s.changes for s in lane.steps), "the lock's own fields are no shared state of the class"
    no_detail = javacheck.lincheck_swimlane(trace.split("Detailed trace:")[0], "x", "violation:Linearizable")
    assert "sync.lock()" in [s.action for s in no_detail.steps], "without the detailed table nothing is folded"


def test_a_write_after_a_switch_is_drawn_where_it_ran_not_on_the_threads_earlier_row():
    """Lincheck's table puts a write a thread makes once it resumes below the other threads' steps; the swimlanes
    keep that order (issue 86: LateWaiterPht's `waiters = 1` was drawn before the two puts it followed)."""
    trace = """The following interleaving leads to the error:
| ------------------------------ |
| Thread 1       | Thread 2      |
| ------------------------------ |
| take()         |               |
|   permits = 0  |               |
|   switch       |               |
|                | put(1)        |
|                | put(2)        |
|   waiters = 1  |               |
| ------------------------------ |
"""
    lane = javacheck.lincheck_swimlane(trace, "LateWaiterPht under lincheck", "deadlock")
    assert [(s.thread, s.action, s.changes) for s in lane.steps] == [
        ("Thread 1", "take()", ["permits = 0"]), ("Thread 1", "switch", []), ("Thread 2", "put(1)", []),
        ("Thread 2", "put(2)", []), ("Thread 1", "resumes", ["waiters = 1"])]


def test_lincheck_runs_with_the_kits_lock_asserts_off_even_when_asked_for_them(tmp_path):
    """Lincheck's model checking runs monitors of its own, where Thread.holdsLock is false: Ring's asserts that its
    helpers run under the monitor would fail the correct buffer there. The checker's JVM says -da after whatever
    JAVA_TOOL_OPTIONS asks (MonitorBufferTest shows the asserts firing outside the monitor, with -ea)."""
    v = catalog.load().variant("MonitorBuffer")
    out = tmp_path / "lincheck.json"
    cmd = javacheck.checker_command("lincheck", v.java, v.profile, out, 5)
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "JAVA_TOOL_OPTIONS": "-ea"})
    verdict = json.loads(out.read_text())
    assert run.returncode == 0 and verdict["verdict"] == "pass", verdict.get("trace", "")[:2000] or run.stdout[-2000:]
