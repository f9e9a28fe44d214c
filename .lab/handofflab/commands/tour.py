"""`./lab tour`: the whole kit on its built-in default, the shared buffer —
installs what is missing, then specs, Java checks, trace validation, grading, notebooks, book."""
from __future__ import annotations

import time

import grader
from handofflab.docs import book, notebooks
from handofflab.java import javabuild, javacheck, tracecheck
from handofflab.ground import paths, toolchain
from handofflab.models import specs
from handofflab.ground.console import LabError, console, heading, ok


def run() -> None:
    start = time.monotonic()
    heading("1/7  Tools (installed on first use, into .tools/ and .venv/)")
    toolchain.install()
    javabuild.build()
    ok("TLC, Java build, mdBook + KaTeX ready")

    heading("2/7  TLC on the shared buffer's models (specs/SharedBuffer.tla)")
    specs.translations()
    outcomes = specs.check(handoff="SharedBuffer")
    if not all(o.matches for o in outcomes):
        raise LabError("a TLC result differs from specs/catalog.toml", "see the table above")

    heading("3/7  The Java buffers under Lincheck and the stress watchdog")
    jouts = javacheck.check(handoff="SharedBuffer")
    if not all(o.matches for o in jouts):
        raise LabError("a Java checker result differs from specs/catalog.toml", "see the table above")

    heading("4/7  Trace validation: real runs of the Java buffers, each held to the design by TLC")
    if not tracecheck.check(handoff="SharedBuffer"):
        raise LabError("a trace validation result differs from specs/catalog.toml", "see the lines above")

    heading("5/7  Grading two sample submissions of lab 'Fix the buffer'")
    samples = {"the starter (both bugs)": paths.LABS / "buffer" / "starter",
               "a correct solution": paths.GRADING / "tests" / "submissions" / "buffer" / "correct"}
    grades = {}
    for label, sub in samples.items():
        g = grader.grade("buffer", sub, paths.RESULTS / "grading" / "buffer" / sub.name)
        grades[label] = g
        console.print(f"  {label}: [bold]{g.score:g} / {g.max_score:g}[/]  "
                      + ", ".join(f"{t.name.split(':')[0]} {t.score:g}/{t.max_score:g}" for t in g.tests))

    heading(f"6/7  Executing the notebooks (all {len(notebooks.sources())}: the book includes each)")
    notebooks.run_all()

    heading("7/7  Building the book")
    index = book.build()

    heading(f"Done in {time.monotonic() - start:.0f} s — open these")
    rel = paths.shown
    console.print(f"""  the book            {rel(index)}   (or: ./lab book serve)
  counterexamples     {rel(specs.OUT)}/*.md, {rel(javacheck.OUT)}/*.md
  grading reports     results/grading/buffer/*/report.md and results.json
  executed notebook   {rel(notebooks.BUILD)}/shared_buffer.ipynb
  the lab handout     labs/buffer/README.md
  next                ./lab test   (every test, per layer)""")
