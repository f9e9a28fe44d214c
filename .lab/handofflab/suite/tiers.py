"""The test suite's two tiers, and CI's rotating slice of the full one.

`./lab test` runs the default tier: every layer and every lab at small sizes, within ten minutes
on 2 cores. A heavy test carries its tier on itself, with why it is heavy and the seconds it took
on 2 quiet cores:
- pytest: `@pytest.mark.full("why", seconds=N)` (conftest.py reads the mark, refuses one without
  its reason or seconds, and leaves the test out of the default tier);
- JUnit: `@Tag("full")` under a line `// full tier (N s): why` (surefire's excludedGroups leaves it
  out; `junit_units` refuses a tag without that line).
`./lab test --full` runs every test. CI runs `./lab test` (the default tier) and then
`./lab test --slice`: one slice of the full tier. The full tier's units are dealt into slices of about SLICE_SECONDS by their
seconds (largest first, each to the lightest slice), and the commit's count picks the slice, so
consecutive commits run every slice in turn: no heavy test goes unrun for long, and none runs in
every CI. A unit's seconds only size the slices; nothing is judged by them."""
from __future__ import annotations

import json
import math
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from handofflab.ground import paths, toolchain
from handofflab.ground.console import LabError

SLICE_SECONDS = 420  # a slice's tests' seconds summed on 2 quiet cores: 3-6 minutes of CI after the default tier

# the comment a JUnit full-tier tag sits under (its reason may go on over more // lines), and what the tag is on
JUNIT_FULL = re.compile(r'//\s*full tier \((\d+(?:\.\d+)?) s\):\s*(\S.*\n(?:\s*//.*\n)*)\s*@Tag\("full"\)')
JUNIT_DECLARATION = re.compile(r"\b(?:class\s+(\w+)|void\s+(\w+)\s*\()")


@dataclass(frozen=True)
class Unit:
    """What CI's slice runs or leaves whole: a pytest test function (every parameter), or tests that
    share a costly fixture (the mark's unit), or a JUnit class or method tagged full."""
    name: str                  # a pytest node id (or its mark's unit), or java:Class[#method]
    seconds: float
    reasons: tuple[str, ...]
    runner: str                # "pytest" or "junit"

    @property
    def junit_selector(self) -> str:
        """surefire's -Dtest form of a JUnit unit: Class or Class#method."""
        return self.name.removeprefix("java:")


def junit_units(java: Path = paths.JAVA) -> list[Unit]:
    """Every JUnit test class or method tagged full, from the test sources under `java`."""
    units = []
    for source in sorted(java.glob("*/src/test/java/**/*.java")):
        text = source.read_text()
        tagged = list(JUNIT_FULL.finditer(text))
        if len(tagged) != text.count('@Tag("full")'):
            raise LabError(f"{paths.shown(source)}: a @Tag(\"full\") without its reason",
                           'put it under a line `// full tier (N s): why it is heavy` (its seconds on 2 quiet cores)')
        for m in tagged:
            declared = JUNIT_DECLARATION.search(text, m.end())
            if declared is None:
                raise LabError(f"{paths.shown(source)}: @Tag(\"full\") on nothing", "tag a test class or method")
            name = f"java:{source.stem}" + (f"#{declared.group(2)}" if declared.group(2) else "")
            reason = " ".join(line.strip().removeprefix("//").strip() for line in m.group(2).splitlines())
            units.append(Unit(name, float(m.group(1)), (reason,), "junit"))
    return units


def pytest_units() -> list[Unit]:
    """Every full-tier pytest unit, as conftest.py collects them (a collection, no test run)."""
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "full.json"
        proc = toolchain.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
                              "--import-mode=importlib", f"--list-full={listing}"],
                             "pytest --collect-only", "run `./lab doctor`", cwd=paths.ROOT, check=False)
        if proc.returncode != 0 or not listing.exists():
            raise LabError("pytest could not collect the suite to find the full tier",
                           f"run `./lab test --collect-only` to see why:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        return [Unit(u["unit"], u["seconds"], tuple(u["reasons"].values()), "pytest")
                for u in json.loads(listing.read_text())]


def deal(units: list[Unit], slices: int) -> list[list[Unit]]:
    """The units in `slices` slices of about equal seconds: largest first, each to the lightest slice."""
    dealt: list[list[Unit]] = [[] for _ in range(slices)]
    for unit in sorted(units, key=lambda u: (-u.seconds, u.name)):
        min(dealt, key=lambda s: (sum(u.seconds for u in s), len(s))).append(unit)
    return dealt


def commit_count() -> int:
    """How many commits lead to HEAD (0 outside git): consecutive commits pick consecutive slices."""
    count = toolchain.git("rev-list", "--count", "HEAD")
    return int(count) if count and count.isdigit() else 0


def rotation(units: list[Unit], index: int) -> tuple[int, int, list[Unit]]:
    """(i, k, units): the i-th of k slices of the full tier, chosen by `index` (the commit count)."""
    total = sum(u.seconds for u in units)
    k = max(1, math.ceil(total / SLICE_SECONDS)) if units else 1
    i = index % k
    return i, k, deal(units, k)[i] if units else []
