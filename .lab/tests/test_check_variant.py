"""`./lab check variant NAME` (commands/variantcheck.py): every claim of one variant, each by its own checker, then
the tests that hold the catalog to the kit; it fails when any of them disagrees."""
import subprocess

import pytest

from handofflab.commands import variantcheck
from handofflab.ground import catalog, paths


def _record(monkeypatch, tlc_agrees=True, java_agrees=True, consistent=True, passes=()):
    ran = []
    outcome = lambda agrees: type("Outcome", (), {"matches": agrees})()  # noqa: E731
    monkeypatch.setattr(variantcheck.specs, "check", lambda name, tier, show: ran.append(("tlc", name)) or
                        [outcome(tlc_agrees)])
    monkeypatch.setattr(variantcheck.javacheck, "check", lambda name, tier, **kw: ran.append(
        ("java", name, kw["jpf"], kw["jcstress"], kw["variant_only"])) or [outcome(java_agrees)])
    monkeypatch.setattr(variantcheck.tracecheck, "check", lambda name, show_traces: ran.append(("trace", name)) or True)
    monkeypatch.setattr(variantcheck.copycheck, "labs_passed", lambda files, folder, specs: ran.append(
        ("answers", [f.name for f in files])) or [f"  {files[0].name} passes lab {lab} (every test but its TCP runs)"
                                                  for lab in passes])
    monkeypatch.setattr(variantcheck.toolchain, "run_foreground", lambda cmd, **kw: ran.append(("tests", cmd[-3:]))
                        or (0 if consistent else 1))
    return ran


def test_each_claim_of_the_variant_goes_to_its_checker_then_the_consistency_tests(monkeypatch):
    v = catalog.load().variant("FastBuffer")  # a cfg, a Java class, jcstress and trace claims, and a design's name
    assert v.cfg and v.java_class and "jcstress" in v.expect and "trace" in v.expect
    ran = _record(monkeypatch)
    assert variantcheck.check("FastBuffer", show_traces=False)
    assert ran[:4] == [("tlc", "FastBuffer"), ("java", "FastBuffer", "jpf" in v.expect, True, True),
                       ("trace", "FastBuffer"), ("answers", ["FastBuffer.java"])]
    assert ran[4][0] == "tests" and ran[4][1] == variantcheck.CONSISTENCY
    for test in variantcheck.CONSISTENCY:  # each names a test file, or a test, that exists
        file, _, name = test.partition("::")
        assert (paths.ROOT / file).exists() and (not name or f"def {name}(" in (paths.ROOT / file).read_text()), test


@pytest.mark.parametrize("disagrees", ["tlc_agrees", "java_agrees", "consistent"])
def test_any_disagreement_fails_the_check(monkeypatch, disagrees):
    _record(monkeypatch, **{disagrees: False})
    assert not variantcheck.check("FastBuffer", show_traces=False)


def test_a_correct_class_that_answers_a_lab_must_be_withheld_by_that_labs_rubric(monkeypatch, capsys):
    """A twin that turns out correct is a full-marks answer to the handoff labs: the check grades it as each lab's
    class (as `./lab release` does) and fails until every lab it answers lists it in `answers`, naming the file."""
    listed = [lab for lab in ("buffer", "server")
              if "java/handoffs/src/main/java/handofflab/handoffs/MonitorBuffer.java" in
              __import__("grader").load_rubric(lab).answers]
    assert listed == ["buffer", "server"]
    _record(monkeypatch, passes=("buffer", "server"))
    assert variantcheck.check("MonitorBuffer", show_traces=False)  # the answer itself, withheld by both
    _record(monkeypatch, passes=("buffer", "pht"))                 # as if it also answered the PHT lab
    assert not variantcheck.check("MonitorBuffer", show_traces=False)
    said = capsys.readouterr().out
    assert "full-marks answer to pht" in said and "labs/pht/rubric.toml" in said and "MonitorBuffer.java" in said
    ran = _record(monkeypatch, passes=("buffer",))
    assert variantcheck.check("IfBuffer", show_traces=False)      # a twin a checker fails is not graded as an answer
    assert not any(r[0] == "answers" for r in ran)


def test_an_unknown_variant_is_named_with_the_catalogs_names():
    run = subprocess.run([str(paths.ROOT / "lab"), "check", "variant", "NoSuchTwin"], capture_output=True, text=True,
                         timeout=120, cwd=paths.ROOT)
    assert run.returncode == 2 and "unknown model or class 'NoSuchTwin'" in run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr


@pytest.mark.full("the real checkers on one twin: TLC, Lincheck (its lapping scenario) and the consistency tests "
                  "(90 s on 2 cores)", seconds=90)
def test_a_contributor_checks_a_twin_with_one_command():
    run = subprocess.run([str(paths.ROOT / "lab"), "check", "variant", "ClaimThenReadBuffer", "--quiet"],
                         capture_output=True, text=True, timeout=900, cwd=paths.ROOT)
    said = run.stdout + run.stderr
    assert run.returncode == 0, said
    assert "violation:NoLoss" in said and "violation:NoDuplicate" in said and "every claim holds" in said
