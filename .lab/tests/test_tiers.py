"""The suite's tiers (handofflab/suite/tiers.py, tierplugin.py): a heavy test says why and leaves the default
tier, `--tier full` runs everything, CI's slices hold every full unit once, and a tier mark without its
reason is refused by name, in pytest and in JUnit alike."""
import json
import re
import subprocess
import sys
import textwrap

import pytest

from handofflab.ground import paths
from handofflab.suite import tiers
from handofflab.ground.console import LabError

SUITE = textwrap.dedent('''
    import pytest

    def test_light():
        pass

    @pytest.mark.full("heavy", seconds=30)
    def test_heavy():
        pass

    @pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.full("a heavy case", seconds=5))])
    def test_cases(n):
        pass

    SHARED = pytest.mark.full("one costly fixture", seconds=40, unit="shared")

    @SHARED
    def test_reads_a():
        pass

    @SHARED
    def test_reads_b():
        pass
''')


def _pytest(tmp_path, *args, suite=SUITE, xdist=False):
    (tmp_path / "test_suite.py").write_text(suite)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "handofflab.suite.tierplugin", "-p", "no:cacheprovider",
                           *([] if xdist else ["-p", "no:xdist"]), "--rootdir", str(tmp_path), "-c", "/dev/null",
                           *args, "test_suite.py"], cwd=tmp_path, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def test_the_default_tier_leaves_out_every_full_test_and_the_full_tier_runs_them(tmp_path):
    rc, out = _pytest(tmp_path)
    assert rc == 0 and "2 passed, 4 deselected" in out, out
    rc, out = _pytest(tmp_path, "--tier=full")
    assert rc == 0 and "6 passed" in out and "deselected" not in out, out


def test_a_slice_adds_its_units_to_the_default_tier_and_an_unknown_unit_is_refused(tmp_path):
    (tmp_path / "slice.txt").write_text("shared\n")
    rc, out = _pytest(tmp_path, f"--with-full={tmp_path / 'slice.txt'}")
    assert rc == 0 and "4 passed, 2 deselected" in out, out
    (tmp_path / "slice.txt").write_text("test_suite.py::test_nothing\n")
    rc, out = _pytest(tmp_path, f"--with-full={tmp_path / 'slice.txt'}")
    assert rc != 0 and "names units the full tier does not have: test_suite.py::test_nothing" in out, out


def test_the_slice_tier_runs_only_its_units_and_needs_them_named(tmp_path):
    """CI's second command (`./lab test --slice`): the slice's units alone, timed apart from the default tier."""
    (tmp_path / "slice.txt").write_text("shared\ntest_suite.py::test_cases\n")
    rc, out = _pytest(tmp_path, "--tier=slice", f"--with-full={tmp_path / 'slice.txt'}")
    assert rc == 0 and "3 passed, 3 deselected" in out, out  # test_reads_a, test_reads_b and test_cases[2]
    rc, out = _pytest(tmp_path, "--tier=slice")
    assert rc != 0 and "--tier slice runs the units --with-full FILE names" in out, out


def test_ci_runs_readmes_test_command_and_then_the_slice_and_fails_if_either_fails():
    ci = (paths.ROOT / ".ci" / "run").read_text()
    assert "./lab test || status=$?" in ci and "./lab test --slice || status=$?" in ci and "exit $status" in ci
    assert re.search(r"^\./lab test\s", (paths.ROOT / "README.md").read_text(), re.M)  # README's second command


def test_a_slice_runs_on_workers_that_name_a_group_as_testrun_runs_them(tmp_path):
    """pytest-xdist's loadgroup appends `@group` to a grouped test's id on each worker: a unit is still found
    by its name there (a CI run's workers ended at their first test when a sliced unit was grouped)."""
    grouped = SUITE.replace('@pytest.mark.full("heavy", seconds=30)',
                            '@pytest.mark.xdist_group("g")\n@pytest.mark.full("heavy", seconds=30)')
    (tmp_path / "slice.txt").write_text("test_suite.py::test_heavy\n")
    rc, out = _pytest(tmp_path, "-n", "2", "--dist", "loadgroup", f"--with-full={tmp_path / 'slice.txt'}",
                      suite=grouped, xdist=True)
    assert rc == 0 and "3 passed" in out, out


def test_the_full_tier_is_listed_by_unit_with_its_seconds_and_reasons(tmp_path):
    rc, out = _pytest(tmp_path, "--collect-only", f"--list-full={tmp_path / 'full.json'}")
    assert rc == 0, out
    units = {u["unit"]: u for u in json.loads((tmp_path / "full.json").read_text())}
    assert set(units) == {"test_suite.py::test_heavy", "test_suite.py::test_cases", "shared"}
    assert units["shared"]["seconds"] == 40 and len(units["shared"]["tests"]) == 2  # the unit's whole, once
    assert units["test_suite.py::test_cases"]["tests"] == ["test_suite.py::test_cases[2]"]
    assert units["test_suite.py::test_heavy"]["reasons"] == {"test_suite.py::test_heavy": "heavy"}


@pytest.mark.parametrize("mark", ['pytest.mark.full(seconds=3)', 'pytest.mark.full("why")',
                                  'pytest.mark.full("", seconds=3)'])
def test_a_full_mark_without_its_reason_or_its_seconds_is_refused(tmp_path, mark):
    rc, out = _pytest(tmp_path, suite=f"import pytest\n\n@{mark}\ndef test_x():\n    pass\n")
    assert rc != 0 and "a `full` mark needs its reason and its seconds" in out, out


def test_every_unit_lands_in_one_slice_and_consecutive_commits_run_every_slice():
    units = [tiers.Unit(f"u{i}", s, ("why",), "pytest") for i, s in enumerate([300, 200, 120, 90, 60, 60, 30, 5, 5])]
    i, k, first = tiers.rotation(units, 0)
    assert k == 3 and i == 0
    seen = [u.name for n in range(k) for u in tiers.rotation(units, n)[2]]
    assert sorted(seen) == sorted(u.name for u in units)      # each once, over k consecutive counts
    sizes = [sum(u.seconds for u in s) for s in tiers.deal(units, k)]
    assert max(sizes) - min(sizes) <= 300                       # no slice heavier than another by more than a unit
    assert tiers.rotation(units, k)[2] == first                 # and round again
    assert tiers.rotation([], 7) == (0, 1, [])


def test_the_kits_junit_full_tags_are_read_with_their_reasons():
    units = {u.name: u for u in tiers.junit_units()}
    burst = "java:ServersTest#aBurstOfClientsThatIdleBeforeTheirRequestIsServedOnceAndNobodyIsBlamed"
    assert burst in units and units[burst].seconds > 0 and "1 600 clients" in units[burst].reasons[0]
    assert units[burst].junit_selector == burst.removeprefix("java:")


def test_a_junit_full_tag_without_its_reason_is_refused(tmp_path):
    source = tmp_path / "mod" / "src" / "test" / "java" / "x" / "HeavyTest.java"
    source.parent.mkdir(parents=True)
    source.write_text('class HeavyTest {\n    // full tier (12 s): a long run\n    @Tag("full")\n    @Test\n'
                      '    void longRun() {}\n}\n')
    assert [u.name for u in tiers.junit_units(tmp_path)] == ["java:HeavyTest#longRun"]
    source.write_text('class HeavyTest {\n    // full tier (12 s): a long run,\n    // of every design\n    @Tag("full")\n'
                      '    @Test\n    void longRun() {}\n}\n')
    assert [u.reasons for u in tiers.junit_units(tmp_path)] == [("a long run, of every design",)]
    source.write_text('@Tag("full")\nclass HeavyTest {\n}\n')
    with pytest.raises(LabError, match="without its reason"):
        tiers.junit_units(tmp_path)


def test_the_kits_suite_has_a_default_tier_in_every_layer():
    """The full tier is where heavy tests go, not where a layer goes: every layer keeps tests in the default tier."""
    from handofflab.ground import paths
    from handofflab.commands import testrun
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
                           "--import-mode=importlib"], cwd=paths.ROOT, capture_output=True, text=True)
    default = [line for line in proc.stdout.splitlines() if "::" in line]
    layers = {line.lstrip(".").split("/")[0] for line in default}
    assert set(testrun.LAYERS) <= layers, layers  # java: its checkers' tests (java/tests) as well as JUnit
    for must in ("test_term.py::test_a_term_from_release_to_the_gradebook",
                 "test_book.py::test_the_book_builds_with_math_and_included_listings",
                 "test_specs.py::test_every_ci_model_is_as_catalogued"):
        assert any(must in line for line in default), must
