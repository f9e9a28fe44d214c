"""`./lab check specs`: TLC on every catalog model, each result compared
with the catalog, every counterexample drawn as swimlanes."""
from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table

from handofflab import catalog as catalog_mod, paths, tlc
from handofflab.console import LabError, bad, console, ok, progress

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
    cat = cat or catalog_mod.load()
    chosen = cat.select(name, tier, checker="tlc", handoff=handoff)
    # a student copy leaves a lab's answer out (the pipes-spec lab's specs/Pipes.tla): its models cannot run there
    absent = [v for v in chosen if not (paths.SPECS / f"{v.handoff.spec}.tla").exists()]
    if absent and name:
        raise LabError(f"{name}'s spec, specs/{absent[0].handoff.spec}.tla, is not in this copy of the kit "
                       "(it is a lab's answer)", "check another model, or write the spec yourself: that is the lab")
    if absent:
        console.print(f"[yellow]not in this copy (a lab's answer), so not checked:[/] "
                      f"{', '.join(v.name for v in absent)}")
        chosen = [v for v in chosen if v not in absent]
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
    if name is None and handoff is None:
        _summary(outcomes, cat)
    return outcomes


def _summary(outcomes: list[SpecOutcome], cat) -> None:
    """The run as a markdown table, for the book (results/specs/summary.md)."""
    rows = ["| model | TLC says | states | time | what is wrong with it |", "|---|---|---|---|---|"]
    for o in outcomes:
        v = cat.variant(o.name)
        bug = v.bug or "—"
        if v.why.get("tlc"):
            bug += f" *Passes: {v.why['tlc']}*"
        got = o.got if o.matches else f"{o.got} (catalog: {o.expected})"
        rows.append(f"| `{o.name}` | `{got}` | {o.states} | {o.seconds:.1f} s | {bug} |")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "summary.md").write_text("\n".join(rows) + "\n")


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
