"""Reads the values TLC prints (records, functions, sets, sequences) so a
counterexample can be shown as what changed, key by key."""
from __future__ import annotations

import re

_TOKEN = re.compile(r'\s*(<<|>>|\|->|:>|@@|[\[\]{}(),]|"(?:[^"\\]|\\.)*"|-?\d+|[A-Za-z_][A-Za-z0-9_]*)')


class TlaSet(tuple):
    """A TLA+ set; a tuple so that it compares and hashes."""


def parse(text: str):
    """TLC's printed value -> dict (record or function), list (sequence),
    TlaSet, or str (a number, string, boolean or model value as printed)."""
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"cannot read TLA+ value at: {text[pos:pos + 30]!r}")
        tokens.append(m.group(1))
        pos = m.end()
    try:
        value, rest = _value(tokens, 0)
    except IndexError:  # a bracket never closed: a value cut short
        raise ValueError(f"the TLA+ value ends early: {text[:60]!r}") from None
    if rest != len(tokens):
        raise ValueError(f"trailing input in TLA+ value: {text!r}")
    return value


def _value(t, i):
    tok = t[i]
    if tok == "<<":
        items, i = _items(t, i + 1, ">>")
        return items, i
    if tok == "{":
        items, i = _items(t, i + 1, "}")
        return TlaSet(items), i
    if tok == "[":
        rec = {}
        i += 1
        while t[i] != "]":
            key = t[i]
            assert t[i + 1] == "|->", f"expected |-> in record, got {t[i + 1]}"
            rec[key], i = _value(t, i + 2)
            if t[i] == ",":
                i += 1
        return rec, i + 1
    if tok == "(":
        fn = {}
        i += 1
        while True:
            key, i = _value(t, i)
            assert t[i] == ":>", f"expected :> in function, got {t[i]}"
            val, i = _value(t, i + 1)
            fn[show(key)] = val
            if t[i] == "@@":
                i += 1
                continue
            assert t[i] == ")"
            return fn, i + 1
    return tok, i + 1


def _items(t, i, close):
    items = []
    while t[i] != close:
        v, i = _value(t, i)
        items.append(v)
        if t[i] == ",":
            i += 1
    return items, i + 1


def show(v) -> str:
    """A value back in short TLA+-like text, for a table cell."""
    if isinstance(v, TlaSet):
        return "{" + ", ".join(show(x) for x in v) + "}"
    if isinstance(v, list):
        return "<<" + ", ".join(show(x) for x in v) + ">>"
    if isinstance(v, dict):
        return "[" + ", ".join(f"{k} ↦ {show(x)}" for k, x in v.items()) + "]"
    return v


def diff(name: str, old, new) -> list[tuple[str, str]]:
    """What changed in one variable: (path, new value) pairs, key by key for
    functions and records, so a table shows `pc[w1] = "check"`, not the whole map."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        return [(f"{name}[{k}]", show(new[k])) for k in new if old[k] != new[k]]
    return [(name, show(new))]
