"""The Java layer's checkers: each correct class passes, each buggy class is
caught by the checker the catalog names, and JPF's absence is a visible skip."""
import os
import re

import pytest

from handofflab import catalog, javacheck, paths


@pytest.fixture(scope="module")
def outcomes():
    return javacheck.check(show_traces=False)


def test_every_checker_result_is_as_catalogued(outcomes):
    assert outcomes
    assert [(o.name, o.checker, o.got) for o in outcomes if not o.matches] == []


def test_every_buggy_class_is_caught_and_every_correct_one_passes(outcomes):
    cat = catalog.load()
    for name in {o.name for o in outcomes}:
        verdicts = [o.got for o in outcomes if o.name == name]
        if cat.variant(name).correct:
            assert set(verdicts) == {"pass"}, (name, verdicts)
        elif not any(v not in ("pass", "skip") for v in verdicts):
            # Missed by every Java checker: allowed only with the catalog's reason for each, and if TLC catches it.
            variant = cat.variant(name)
            assert all(o.checker in variant.why for o in outcomes if o.name == name), f"{name} caught by no checker"
            assert variant.expected("tlc") != "pass", f"{name} is caught by no checker at all"


def test_caught_bugs_leave_swimlanes(outcomes):
    for name, checker in (("NotifyBuffer", "stress"), ("IfBuffer", "lincheck"), ("IfBuffer", "stress")):
        md = (javacheck.OUT / f"{name}.{checker}.md").read_text()
        assert md.count("\n|") > 3 and "reports" in md
        lane = javacheck.Swimlane.from_json((javacheck.OUT / f"{name}.{checker}.json").read_text())
        assert lane.steps and lane.verdict != "pass"


def test_the_stress_deadlock_says_where_each_thread_waits(outcomes):
    lane = javacheck.Swimlane.from_json((javacheck.OUT / "NotifyBuffer.stress.json").read_text())
    assert lane.verdict == "deadlock"
    assert all("WAITING" in where for where in lane.ending.values()), lane.ending


@pytest.mark.skipif(bool(os.environ.get("JPF_HOME")), reason="JPF_HOME is set: the real JPF run is tested instead")
def test_without_jpf_home_jpf_is_a_visible_skip_with_how_to_get_it(monkeypatch):
    verdict = javacheck.run_checker("jpf", "NotifyBuffer")
    assert verdict["verdict"] == "skip"
    assert "JPF_HOME" in verdict["detail"] and "never downloads" in verdict["detail"]


@pytest.mark.skipif(not os.environ.get("JPF_HOME"), reason="needs JPF_HOME (a jpf-core build); see ./lab doctor")
def test_jpf_gives_every_catalogued_verdict():
    # Includes finding the NotifyBuffer deadlock and passing MonitorBuffer (issue 3).
    for v in catalog.load().variants.values():
        if v.java and "jpf" in v.expect:
            assert javacheck.run_checker("jpf", v.java)["verdict"] == v.expected("jpf"), v.name


def _cited_lines(lane):
    """(action, file, line) for every step that names a source line: `code  (File.java:N)`."""
    for step in lane.steps:
        m = re.fullmatch(r"(.*?)\s+\((\w+\.java):(\d+)\)", step.action)
        if m:
            yield m[1].strip(), m[2], int(m[3])


@pytest.mark.parametrize("recorded", sorted((paths.BOOK / "recorded").glob("*.json")), ids=lambda p: p.stem)
def test_a_recorded_trace_still_matches_the_source_it_cites(recorded):
    # The book keeps JPF's NotifyBuffer trace from a real run (CI has no JPF). If a cited line moves
    # or changes, this fails: record it again with JPF_HOME=... ./lab check java NotifyBuffer --jpf.
    lane = javacheck.Swimlane.from_json(recorded.read_text())
    assert lane.verdict != "pass" and "Recorded from a real run" in lane.note
    cited = list(_cited_lines(lane))
    assert len(cited) == len(lane.steps) > 5
    sources = {p.name: p for p in paths.JAVA.rglob("*.java") if "target" not in p.parts}
    for code, file, line in cited:
        assert sources[file].read_text().splitlines()[line - 1].strip() == code, f"{file}:{line} no longer reads {code!r}"


@pytest.mark.skipif(not os.environ.get("JPF_HOME"), reason="needs JPF_HOME (a jpf-core build); see ./lab doctor")
def test_a_fresh_jpf_run_draws_the_recorded_trace():
    recorded = javacheck.Swimlane.from_json((paths.BOOK / "recorded" / "NotifyBuffer.jpf.json").read_text())
    assert javacheck.run_checker("jpf", "NotifyBuffer")["verdict"] == recorded.verdict
    fresh = javacheck.Swimlane.from_json((javacheck.OUT / "NotifyBuffer.jpf.json").read_text())
    assert [(s.thread, s.action) for s in fresh.steps] == [(s.thread, s.action) for s in recorded.steps]
