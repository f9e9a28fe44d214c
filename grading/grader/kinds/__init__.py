"""The kinds of rubric test, one module each behind one interface: `KIND`, `NEEDS` (the kinds
that must be scored first) and `score(ctx)`, which fills in every result of its kind."""
from __future__ import annotations

from grader.kinds import checker, design, dht, junit, mutants, server, tlc

KINDS = {m.KIND: m for m in (junit, design, checker, tlc, mutants, server, dht)}


def in_order(kinds: set[str]) -> list:
    """The modules of `kinds`, each after the kinds it needs."""
    done, ordered = set(), []

    def visit(kind: str) -> None:
        if kind in done:
            return
        for need in KINDS[kind].NEEDS:
            visit(need)
        done.add(kind)
        if kind in kinds:
            ordered.append(KINDS[kind])
    for kind in sorted(kinds):
        visit(kind)
    return ordered
