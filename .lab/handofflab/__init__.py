"""Handoff Lab's orchestration: the Python behind `./lab`, one folder per floor.

- `commands/`  the top floor: what `./lab` runs (`commands/cli.py` names every command); the only
               modules that import the grader (grading/grader), which sits on the floor below.
- the engines, each folder a family that drives one part of the kit with the real tool for it:
  `docs/` (the book, the notebooks, the book's TLA+ listings), `benches/` (the benchmarks and the
  server and DHT processes they run), `suite/` (the test suite's tiers); below them `java/` (the Java
  build, the Java checkers, trace validation), then `models/` (the specs and TLC).
- `ground/`    the ground floor: paths, the console, the tool runner, the catalog, the swimlanes.

pyproject.toml's import-linter contracts hold the floors (a test runs them): a module imports only
from its own floor or the floors below it, and no folder's modules import each other in a circle.
"""
