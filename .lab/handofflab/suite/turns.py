"""Quiet turns: a judgement the suite's own load left unmade is made again with the suite's other workers waiting.

`./lab test` runs one more pytest worker than there are cores, and on 2 cores three heavy tests at once (a
grading beside jcstress beside a TLC run) are load enough for the grader's rule to answer "not graded, machine
too busy" three times running: the full tier of stop 99 left eight gradings unjudged that way. Their marks were
not wrong, but a skip is not a pass. So every test runs holding a shared turn, and a test whose judgement came
back pending takes a *quiet* one before it asks again: no new test starts, the running ones finish, and the
regrade has the machine to itself but for whatever runs outside the suite (two busy loops stay two busy loops,
and a grading that is still pending beside them is skipped saying so, the grader's rule, not the test's).

The turns are two `flock`s on files in one folder per run (HANDOFFLAB_SUITE_TURNS, made by the run's first
process and inherited by pytest-xdist's workers): the *hall*, held shared by every running test and exclusive by
the quiet one, and the *gate*, passed on the way in, which the quiet test holds while it waits so that the hall
drains rather than refills. Without the folder (a test run by hand) a quiet turn is simply the test's own time."""
from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

ENV = "HANDOFFLAB_SUITE_TURNS"


class _Turns:
    """This process's side of the run's two locks (one open file each: flock locks belong to the open file)."""

    def __init__(self, folder: Path):
        self.gate = open(folder / "gate", "a+")
        self.hall = open(folder / "hall", "a+")
        self.waited: list[float] = []  # the seconds each quiet turn of the current test waited for its turn

    def enter(self) -> None:
        """A test's ordinary turn: through the gate (closed while a quiet turn waits), into the shared hall."""
        self.waited.clear()
        fcntl.flock(self.gate, fcntl.LOCK_EX)
        fcntl.flock(self.hall, fcntl.LOCK_SH)
        fcntl.flock(self.gate, fcntl.LOCK_UN)

    def leave(self) -> None:
        fcntl.flock(self.hall, fcntl.LOCK_UN)

    @contextmanager
    def quiet(self):
        """The hall to this test alone: its own shared turn given up first, so two tests after a quiet turn at
        once queue at the gate instead of each waiting for the other to leave the hall."""
        asked = time.monotonic()
        fcntl.flock(self.hall, fcntl.LOCK_UN)
        fcntl.flock(self.gate, fcntl.LOCK_EX)
        fcntl.flock(self.hall, fcntl.LOCK_EX)
        self.waited.append(time.monotonic() - asked)
        try:
            yield
        finally:
            fcntl.flock(self.hall, fcntl.LOCK_SH)  # back to a shared turn while the gate still keeps others out
            fcntl.flock(self.gate, fcntl.LOCK_UN)


_turns: _Turns | None = None


def _open_run() -> Path:
    """The run's folder of locks, made by its controller: a pytest run inside a test (which inherits the variable)
    gets its own, or its tests would queue at a gate the test around them may be keeping closed."""
    folder = Path(tempfile.mkdtemp(prefix="handofflab-turns-"))
    os.environ[ENV] = str(folder)  # pytest-xdist's workers start after this and inherit it
    return folder


def _mine() -> _Turns | None:
    global _turns
    if _turns is None and os.environ.get(ENV) and Path(os.environ[ENV]).is_dir():
        _turns = _Turns(Path(os.environ[ENV]))
    return _turns


def enter() -> None:
    if (t := _mine()) is not None:
        t.enter()


def leave() -> None:
    if (t := _mine()) is not None:
        t.leave()


@contextmanager
def quiet():
    """`with turns.quiet(): ...` — judge again with no other test of the suite running."""
    t = _mine()
    if t is None:
        yield
        return
    with t.quiet():
        yield


# -- the pytest side (conftest.py loads this module as a plugin) ----------------------------------------------------
def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controller (or a run without workers), not an xdist worker
        config._handofflab_turns = _open_run()


def pytest_unconfigure(config):
    folder = getattr(config, "_handofflab_turns", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Every test, its fixtures' setup and teardown included, in a turn of its own."""
    enter()
    try:
        yield
    finally:
        leave()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that took a quiet turn says so, with what the turn cost it: `./lab test`'s summary lists them."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "teardown" and (t := _mine()) is not None and t.waited:
        report.user_properties.append(("quiet_turns_waited_s", ",".join(f"{w:.0f}" for w in t.waited)))
