"""Every pytest process of `./lab test` writes its results into a folder of its own.

`./lab test` runs the suite on every core (pytest-xdist). Each worker is a process of its
own, and the kit's commands write their counterexamples, verdicts and benchmark CSVs into
HANDOFFLAB_RESULTS: two workers sharing that folder could read each other's half-written
files. So each worker gets a subfolder, set here, before any test imports the kit (whose
`paths.RESULTS` is read once, at import)."""
import os

_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker and os.environ.get("HANDOFFLAB_RESULTS"):
    os.environ["HANDOFFLAB_RESULTS"] = os.path.join(os.environ["HANDOFFLAB_RESULTS"], _worker)
    os.makedirs(os.environ["HANDOFFLAB_RESULTS"], exist_ok=True)


# -- CPU per test ------------------------------------------------------------------------
# On 2 cores the suite's length is its CPU time over the cores, so `./lab test` lists the tests
# that cost the most CPU: this test process's and every child's it waited for (the JVMs, TLC,
# the jailed gradings), from setup to teardown. A module fixture counts for the first test using it.
import resource  # noqa: E402

import pytest  # noqa: E402


def _cpu_seconds() -> float:
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


_started = 0.0  # the CPU seconds at the current test's start (one test at a time per process)


def pytest_runtest_logstart(nodeid, location):
    global _started
    _started = _cpu_seconds()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "teardown":
        report.user_properties.append(("cpu_seconds", round(_cpu_seconds() - _started, 1)))
        report.user_properties.append(("tier", "full" if item.get_closest_marker("full") else "default"))



# The tiers (`full` marks, --tier, --with-full, --list-full): handofflab/suite/tierplugin.py; the quiet turn a
# judgement the suite's own load left unmade is made again in: handofflab/suite/turns.py.
pytest_plugins = ["handofflab.suite.tierplugin", "handofflab.suite.turns"]
