"""`./lab check variant NAME`: every claim of one catalogued variant, then the consistency tests that hold the
catalog to the rest of the kit. What a contributor runs after adding a twin (book: "Adding a buggy variant")."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import grader
from handofflab.commands import copycheck
from handofflab.ground import catalog, paths, toolchain
from handofflab.ground.console import LabError, bad, heading, ok
from handofflab.java import javacheck, tracecheck
from handofflab.models import specs

# The tests that hold a catalog entry to the kit (whatever the variant): its names exist, no code restates it,
# its class kind's checkers, the book's checker tables and the claims its chapters make.
CONSISTENCY = ["specs/tests/test_catalog.py", "java/tests/test_java_checks.py::"
               "test_every_buggy_class_is_claimed_caught_and_every_correct_one_to_pass",
               "book/tests/test_book.py::test_the_books_checker_tables_say_what_the_catalog_claims"]


def check(name: str, show_traces: bool = True) -> bool:
    """TLC on its cfg, each Java checker it claims (jcstress and JPF too, where claimed), trace validation where
    claimed, then CONSISTENCY; True when every one agrees with the catalog."""
    v = catalog.load().variant(name)  # an unknown name is refused with the catalog's names
    if not v.cfg and not v.java_class:
        raise LabError(f"{name} has neither a cfg nor a Java class", "give its catalog entry `cfg` or a class")
    agree = []
    if v.cfg:
        heading(f"{name}: TLC on specs/{v.cfg}")
        agree.append(all(o.matches for o in specs.check(name, v.tier, show_traces)))
    if v.java_class:
        heading(f"{name}: the Java checkers it claims")
        outcomes = javacheck.check(name, v.tier, jpf="jpf" in v.expect, show_traces=show_traces,
                                   jcstress="jcstress" in v.expect, variant_only=True)
        agree.append(all(o.matches for o in outcomes))
    if "trace" in v.expect:
        heading(f"{name}: trace validation")
        agree.append(tracecheck.check(name, show_traces=show_traces))
    if v.java_class:
        agree.append(_withheld_where_it_answers(v))
    heading("the consistency tests: the catalog against the code, the classes and the book")
    with tempfile.TemporaryDirectory(prefix="check-variant-") as results:
        code = toolchain.run_foreground([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                         *CONSISTENCY], cwd=paths.ROOT,
                                        env={**os.environ, "HANDOFFLAB_RESULTS": results})
    agree.append(code == 0)
    (ok if all(agree) else bad)(f"{name}: " + ("every claim holds, and the catalog agrees with the kit" if all(agree)
                                               else "something disagrees with the catalog (above)"))
    return all(agree)


def _withheld_where_it_answers(v: catalog.Variant) -> bool:
    """A handoff class no checker claims to fail, handed in as a lab's class, may earn every mark (a twin that turned
    out correct, as WakeWhenFullEndsBuffer did): then that lab's `answers` must list it, or a student copy ships it
    (`./lab release` refuses such a copy). Graded as the release's scan grades it, the cheapest test first."""
    folder = paths.JAVA / "handoffs" / "src" / "main" / "java" / "handofflab" / "handoffs"
    source = folder / f"{v.java}.java"
    if copycheck.fails_a_checker(v) or source not in copycheck.handoff_classes(folder):
        return True  # a class a checker fails loses the labs' marks; a store, a queue or a table answers no such lab
    heading(f"{v.name}: does it answer a lab? (graded as each handoff lab's class)")
    kit_path = source.relative_to(paths.ROOT).as_posix()
    with tempfile.TemporaryDirectory(prefix="no-specs-") as no_specs:
        passed = copycheck.labs_passed([source], folder, Path(no_specs))
    answered = sorted({line.split(" passes lab ")[1].split()[0] for line in passed if " passes lab " in line})
    unlisted = [lab for lab in answered if kit_path not in grader.load_rubric(lab).answers]
    undecided = [line.strip() for line in passed if "could not be graded" in line]
    for line in undecided:
        bad(line)
    if unlisted:
        bad(f"{v.java} is a full-marks answer to {', '.join(unlisted)}: add \"{kit_path}\" to the `answers` of "
            + ", ".join(f"labs/{lab}/rubric.toml" for lab in unlisted) + " (a student copy then leaves it out)")
    elif not undecided:
        ok(f"{v.java} answers no lab" if not answered else
           f"{v.java} answers {', '.join(answered)}, whose `answers` withhold it from a student copy")
    return not unlisted and not undecided
