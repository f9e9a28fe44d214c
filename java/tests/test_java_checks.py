"""The Java layer's checkers: each correct class passes, each buggy class is
caught by the checker the catalog names, and JPF's absence is a visible skip."""
import os
import re

import pytest

from handofflab import catalog, javacheck, paths


PAIRS = javacheck.claimed_pairs()


@pytest.mark.parametrize("variant,checker", PAIRS, ids=[f"{v.name}-{c}" for v, c in PAIRS])
def test_the_checker_gives_the_catalogued_verdict(variant, checker):
    """One (variant, checker) per test, so a failure names its pair and -k selects it."""
    o = javacheck.check_pair(variant, checker)
    assert (o.got, o.detail) and o.got == o.expected, f"{checker} on {variant.java}: {o.got} ({o.detail})"
    if o.got != "pass":  # a catch leaves a swimlane with its steps
        lane = javacheck.Swimlane.from_json((javacheck.OUT / f"{variant.name}.{checker}.json").read_text())
        md = (javacheck.OUT / f"{variant.name}.{checker}.md").read_text()
        assert lane.steps and lane.verdict == o.got and "reports" in md and md.count("\n|") > 3
        if checker == "stress" and o.got == "deadlock":  # says where each thread waits
            assert all("WAITING" in where for where in lane.ending.values()), lane.ending


def test_every_buggy_class_is_claimed_caught_and_every_correct_one_to_pass():
    cat = catalog.load()
    for v in cat.select(None, "ci"):
        if not v.java:
            continue
        claims = {c: v.expected(c) for c in ("lincheck", "stress") if v.expected(c) is not None}
        if v.correct:
            assert set(claims.values()) == {"pass"} and set(claims) == {"lincheck", "stress"}, (v.name, claims)
        elif not any(verdict != "pass" for verdict in claims.values()):
            # Missed by every Java checker: allowed only with the catalog's reason for each, and if TLC catches it.
            assert all(c in v.why for c in ("lincheck", "stress")), f"{v.name} caught by no checker"
            assert v.expected("tlc") != "pass", f"{v.name} is caught by no checker at all"


def test_the_sweep_runs_every_claimed_pair_and_reports_them(monkeypatch):
    """`./lab check java` runs the same pairs as the tests above (the checkers stubbed here)."""
    ran, claim = [], {(v.name, c): v.expected(c) for v, c in PAIRS}
    monkeypatch.setattr(javacheck, "run_checker", lambda checker, name, seconds: ran.append((name, checker)) or
                        {"verdict": claim[(name, checker)], "detail": "stub", "stats": {}, "trace": ""})
    monkeypatch.setattr(javacheck, "swimlane", lambda verdict: None)
    outcomes = javacheck.check(show_traces=False)
    assert sorted(ran) == sorted(claim) and all(o.matches for o in outcomes) and len(outcomes) == len(PAIRS)


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
