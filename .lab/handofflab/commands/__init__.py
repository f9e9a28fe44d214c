"""The commands: what `./lab` runs, and the only modules of the kit that import the grader.

The house has one direction, held by import-linter (pyproject.toml; a test runs it): commands → the
grader (grading/grader) → the engines (docs, benches, suite → java → models) → the ground floor
(ground: the catalog, the swimlanes and the tool runner on paths and the console)."""
