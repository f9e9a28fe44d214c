"""The pytest side of the suite's tiers (tiers.py says what each is): the `full` mark and the options
`./lab test` passes. conftest.py loads it for the kit's suite.

A heavy test is marked `full("why", seconds=N)`: why it is heavy, and the seconds it (each parameter)
took in a quiet run of the suite, which only size CI's slices; `unit="NAME"` keeps tests that share a
costly fixture in one slice, the mark's seconds then the unit's whole. Without options only the default
tier runs; `--tier full` runs every test; `--with-full FILE` adds the full-tier units FILE names, and
`--tier slice --with-full FILE` runs only them (CI's slice, which `./lab test --slice` chooses);
`--list-full FILE` writes the full tier's units as JSON."""
from __future__ import annotations

import json

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("handofflab", "Handoff Lab's tiers")
    group.addoption("--tier", choices=("default", "full", "slice"), default="default",
                    help="default: the tests not marked `full` (README's `./lab test`); full: every test; "
                         "slice: only the full-tier units --with-full names")
    group.addoption("--with-full", metavar="FILE", help="also run the full-tier units FILE names, one a line")
    group.addoption("--list-full", metavar="FILE",
                    help="write the full tier's units (name, seconds, reasons, tests) as JSON")


def pytest_configure(config):
    config.addinivalue_line("markers", "full(reason, seconds=N, unit=None): a heavy test, run only by the full "
                            "tier (./lab test --full) and CI's rotating slice; unit: tests that share a fixture")


def full_unit(item) -> tuple[str, str, float, bool] | None:
    """(unit, reason, seconds, whether the mark names its unit) of a full-tier test, None for a default-tier
    one. A mark without its reason or its seconds is refused by name: a test's tier is never unexplained."""
    mark = item.get_closest_marker("full")
    if mark is None:
        return None
    reason = mark.args[0] if mark.args else mark.kwargs.get("reason")
    seconds = mark.kwargs.get("seconds")
    if not isinstance(reason, str) or not reason.strip() or not isinstance(seconds, (int, float)):
        raise pytest.UsageError(f"{item.nodeid}: a `full` mark needs its reason and its seconds on 2 quiet cores, "
                                "e.g. @pytest.mark.full(\"grades every sample\", seconds=120)")
    unit = mark.kwargs.get("unit")
    return unit or _function(item), reason, seconds, bool(unit)


def _function(item) -> str:
    """The node id of the test's function: without its parameters, and without the `@group` that
    pytest-xdist's loadgroup appends on a worker (a unit is named alike on every process)."""
    return item.nodeid.split("@", 1)[0].split("[", 1)[0]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist renames the items of a group
def pytest_collection_modifyitems(config, items):
    tier, extra, listing = (config.getoption(o) for o in ("--tier", "--with-full", "--list-full"))
    wanted = set(open(extra).read().split()) if extra else set()
    units: dict[str, dict] = {}
    keep, drop = [], []
    for item in items:
        full = full_unit(item)
        if full is not None:
            unit, reason, seconds, named = full
            u = units.setdefault(unit, {"unit": unit, "seconds": 0.0, "reasons": {}, "tests": []})
            u["reasons"].setdefault(_function(item), reason)
            if not named or not u["tests"]:  # each test's own seconds; a named unit's mark gives the unit's whole
                u["seconds"] += seconds
            u["tests"].append(item.nodeid.split("@", 1)[0])
        if tier == "full" or (full[0] in wanted if full else tier != "slice"):
            keep.append(item)
        else:
            drop.append(item)
    if listing:
        with open(listing, "w") as f:
            json.dump(sorted(units.values(), key=lambda u: u["unit"]), f, indent=1)
    if tier == "slice" and not extra:
        raise pytest.UsageError("--tier slice runs the units --with-full FILE names: give the FILE")
    unknown = wanted - set(units)
    if unknown:
        raise pytest.UsageError(f"--with-full names units the full tier does not have: {', '.join(sorted(unknown))}")
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
