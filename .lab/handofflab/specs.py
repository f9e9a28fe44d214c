"""`./lab check specs`: TLC on every catalog model, each result compared
with the catalog, every counterexample drawn as swimlanes."""
from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table

from handofflab import catalog as catalog_mod, paths, tlc
from handofflab.console import bad, console, ok, progress

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


def check(name: str | None = None, tier: str = "ci", show_traces: bool = True, cat=None) -> list[SpecOutcome]:
    cat = cat or catalog_mod.load()
    chosen = cat.select(name, tier, checker="tlc")
    outcomes = []
    with progress() as bar:
        task = bar.add_task("TLC", total=len(chosen))
        for v in chosen:
            bar.update(task, description=f"TLC {v.name}")
            result = tlc.run(v)
            outcome = SpecOutcome(v.name, v.expected("tlc"), result.verdict, v.expect.get("states"),
                                  result.distinct, result.seconds)
            outcomes.append(outcome)
            if result.trace:
                result.trace.save(OUT / v.name)
                if show_traces:
                    result.trace.show()
            bar.advance(task)
    _report(outcomes)
    return outcomes


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
        ok(f"all {len(outcomes)} models as catalogued; counterexamples in {OUT.relative_to(paths.ROOT)}/")
