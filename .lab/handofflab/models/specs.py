"""`./lab check specs`: TLC on every catalog model, each result compared
with the catalog, every counterexample drawn as swimlanes."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from rich.table import Table

from handofflab.ground import catalog as catalog_mod, paths
from handofflab.models import tlc
from handofflab.ground.console import LabError, bad, console, ok, progress

OUT = paths.RESULTS / "specs"


@dataclass
class SpecOutcome:
    name: str
    expected: str
    got: str
    expected_states: int | None
    states: int | None
    seconds: float

    @property
    def matches(self) -> bool:
        return self.got == self.expected and (self.expected_states is None or self.states == self.expected_states)


def translations(fix: bool = False) -> None:
    """Every PlusCal algorithm's checked-in translation must be current: TLC
    checks the translation, students read the PlusCal."""
    stale = tlc.stale_translations()
    if stale and fix:
        for name in stale:
            tlc.translate(paths.SPECS / f"{name}.tla")
        ok(f"re-translated {', '.join(stale)}")
    elif stale:
        raise LabError(f"the TLA+ translation of {', '.join(stale)} is older than its PlusCal",
                       "re-translate with `./lab check specs --translate`, then check again")


def check(name: str | None = None, tier: str = "ci", show_traces: bool = True, cat=None,
          handoff: str | None = None) -> list[SpecOutcome]:
    kits_catalog = cat is None  # a test's altered catalog never writes the book's table
    cat = cat or catalog_mod.load()
    chosen = cat.select(name, tier, checker="tlc", handoff=handoff)
    # a student copy leaves a lab's answer out (the pipes-spec lab's specs/Pipes.tla): its models cannot run there
    absent = [v for v in chosen if not (paths.SPECS / f"{v.module}.tla").exists()]
    if absent and name in cat.variants:
        raise LabError(f"{name}'s spec, specs/{absent[0].module}.tla, is not in this copy of the kit "
                       "(it is a lab's answer)", "check another model, or write the spec yourself: that is the lab")
    if absent:
        console.print(f"[yellow]not in this copy (a lab's answer), so not checked:[/] "
                      f"{', '.join(v.name for v in absent)}")
        chosen = [v for v in chosen if v not in absent]
    outcomes = []
    # One TLC per core at once: each is a JVM of its own with one worker, its own metadata and tmpdir
    # (tlc.command), and most CI models take less time to check than their JVM takes to start.
    with progress() as bar, ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        task = bar.add_task("TLC", total=len(chosen))
        running = {pool.submit(tlc.run, v): v for v in chosen}
        for done in as_completed(running):
            bar.update(task, description=f"TLC {running[done].name}")
            bar.advance(task)
        for future, v in running.items():  # in the catalog's order
            result = future.result()
            outcome = SpecOutcome(v.name, v.expected("tlc"), result.verdict, v.expect.get("states"),
                                  result.distinct, result.seconds)
            outcomes.append(outcome)
            if result.trace:
                result.trace.save(OUT / v.name)
                if show_traces:
                    result.trace.show()
    _report(outcomes)
    if kits_catalog:
        _summary(outcomes, cat, [v for v in cat.select(None, tier, checker="tlc")
                                 if (paths.SPECS / f"{v.module}.tla").exists()])
    return outcomes


def _summary(outcomes: list[SpecOutcome], cat, tier_models) -> None:
    """Each checked model's row of the book's table (results/specs/rows/), and the table itself
    (results/specs/summary.md), in the catalog's order, once every model of the tier has a row: a run
    of some models (one handoff's, as the tests run them) updates theirs, and the table is whole."""
    rows = OUT / "rows"
    rows.mkdir(parents=True, exist_ok=True)
    for o in outcomes:
        v = cat.variant(o.name)
        bug = v.bug or "—"
        if v.why.get("tlc"):
            bug += f" *Passes: {v.why['tlc']}*"
        got = o.got if o.matches else f"{o.got} (catalog: {o.expected})"
        (rows / f"{o.name}.md").write_text(f"| `{o.name}` | `{got}` | {o.states} | {o.seconds:.1f} s | {bug} |\n")
    if all((rows / f"{v.name}.md").exists() for v in tier_models):
        table = ["| model | TLC says | states | time | what is wrong with it |\n", "|---|---|---|---|---|\n"]
        (OUT / "summary.md").write_text("".join(table + [(rows / f"{v.name}.md").read_text() for v in tier_models]))


def _report(outcomes: list[SpecOutcome]) -> None:
    table = Table(title="TLC against specs/catalog.toml")
    for col in ("model", "expected", "TLC says", "distinct states (expected)", "time", ""):
        table.add_column(col)
    for o in outcomes:
        states = f"{o.states} ({o.expected_states})" if o.expected_states is not None else str(o.states)
        mark = "[green]as catalogued" if o.matches else "[red]DIFFERS"
        table.add_row(o.name, o.expected, o.got, states, f"{o.seconds:.1f} s", mark)
    console.print(table)
    wrong = [o for o in outcomes if not o.matches]
    if wrong:
        bad(f"{len(wrong)} model(s) differ from the catalog: {', '.join(o.name for o in wrong)}")
    else:
        ok(f"all {len(outcomes)} models as catalogued; counterexamples in {paths.shown(OUT)}/")
