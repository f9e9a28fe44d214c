"""The commands: what `./lab` runs, and the only modules of the kit that import the grader.

The house has one direction, held by .importlinter (a test runs it): commands → the grader
(grading/grader) → the engines (catalog, tlc, specs, javabuild, javacheck, tracecheck, book, the
benches, …) → the ground floor (toolchain, paths, console), which imports nothing of the kit."""
