"""Quiet turns (handofflab/suite/turns.py), in a real pytest-xdist run on three workers: a test's quiet turn begins
only when the tests running beside it have ended, no test starts while it waits or runs, and the run's JUnit XML
says what it waited (the line `./lab test`'s summary prints)."""
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

SUITE = textwrap.dedent('''
    import os, pathlib, time
    import pytest
    from handofflab.suite import turns

    LOG = pathlib.Path(os.environ["TURNS_LOG"])

    def mark(what):  # CLOCK_MONOTONIC is one clock for every process of the machine
        (LOG / f"{time.monotonic():.6f} {what}").touch()

    def wait_for(what):
        for _ in range(600):
            if any(p.name.endswith(" " + what) for p in LOG.iterdir()):
                return
            time.sleep(0.05)
        raise AssertionError(f"no {what} in 30 s: the three groups did not run side by side")

    @pytest.mark.xdist_group("a")
    def test_running_when_the_quiet_turn_is_asked():
        mark("long-start")
        wait_for("quiet-asked")
        time.sleep(1.0)
        mark("long-end")

    @pytest.mark.xdist_group("b")
    def test_takes_a_quiet_turn():
        wait_for("long-start")
        wait_for("first-start")
        mark("quiet-asked")
        with turns.quiet():
            mark("quiet-in")
            time.sleep(0.5)
            mark("quiet-out")

    @pytest.mark.xdist_group("c")
    def test_ends_while_the_quiet_turn_waits():
        mark("first-start")
        wait_for("quiet-asked")
        time.sleep(0.3)
        mark("first-end")

    @pytest.mark.xdist_group("c")
    def test_starts_after_it():
        mark("next-start")
''')


def test_a_quiet_turn_waits_for_the_running_tests_and_holds_back_the_next(tmp_path):
    (tmp_path / "test_suite.py").write_text(SUITE)
    log = tmp_path / "log"
    log.mkdir()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "handofflab.suite.turns", "-p", "no:cacheprovider",
                           "-n", "3", "--dist", "loadgroup", "--rootdir", str(tmp_path), "-c", "/dev/null",
                           f"--junitxml={tmp_path / 'junit.xml'}", "-o", "junit_family=xunit1", "test_suite.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TURNS_LOG": str(log)})
    assert proc.returncode == 0 and "4 passed" in proc.stdout, proc.stdout + proc.stderr
    at = {name: float(t) for t, name in (p.name.split(" ") for p in log.iterdir())}
    assert at["quiet-in"] > at["long-end"] and at["quiet-in"] > at["first-end"], at  # the hall drained first
    assert at["next-start"] > at["quiet-out"], at  # and the gate kept the next test out until the turn ended
    # what each test's quiet turns waited; xdist's loadgroup names a grouped test NAME@GROUP
    waited = {c.get("name").split("@")[0]: p.get("value") for c in ET.parse(tmp_path / "junit.xml").iter("testcase")
              for p in c.iter("property") if p.get("name") == "quiet_turns_waited_s"}
    assert list(waited) == ["test_takes_a_quiet_turn"] and float(waited["test_takes_a_quiet_turn"]) >= 1, waited
