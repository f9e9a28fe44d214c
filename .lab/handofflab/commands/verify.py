"""`./lab verify-verdicts`: is every verdict the kit claims a verdict every time, on a busy
machine too? Reruns each catalogued Java checker verdict (specs/catalog.toml: Lincheck, stress and
trace validation; JPF's, where JPF_HOME is set, by `./lab check java --jpf`) and grades each
sample submission (grading/tests/submissions/expected.toml) N times while K busy loops compete
for the cores, and prints, per pair, how many runs agreed with the claim. A pair below N/N is a
claim to withdraw (with its reason in the catalog) or a checker to make deterministic."""
from __future__ import annotations

import csv
import os
import re
import sys
import tomllib
from pathlib import Path

from rich.table import Table

import grader
from grader import budgets
from handofflab.ground import catalog as catalog_mod, paths, toolchain
from handofflab.java import javacheck, tracecheck
from handofflab.ground.console import LabError, bad, console, ok, progress

SAMPLES = paths.GRADING / "tests" / "submissions"
EXPECTED = SAMPLES / "expected.toml"
OUT = paths.RESULTS / "verify"
REGRADES = 3  # a grading that says "not graded, regrade" is graded again, at most this many times in all


def sample_marks() -> dict[str, dict[str, list[float]]]:
    """{lab: {sample: marks}} from expected.toml; a sample's folder, or the lab's starter."""
    try:
        return tomllib.loads(EXPECTED.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise LabError(f"{paths.shown(EXPECTED)} cannot be read: {e}", "restore it from git")


def sample_path(lab: str, name: str) -> Path:
    return paths.LABS / lab / "starter" if name == "starter" else SAMPLES / lab / name


def _busy(k: int):
    """K busy loops for the length of a block, each also ending when this process does: a verify-verdicts
    killed mid-run (no `finally` runs) leaves none. The parent's pid is given, not read by the loop, which
    may start after it died."""
    loop = f"import os\nwhile os.getppid() == {os.getpid()}: pass"
    return toolchain.run_beside([[sys.executable, "-c", loop]] * k, "the busy loops", "run ./lab with the kit's Python",
                                capture=False)


def rotation(pairs: list, k: int, seed: str) -> list:
    """k of the claims, chosen by `seed` (CI gives the commit): half catalogued Java verdicts, half sample
    gradings, so that every commit reruns a few and a week of commits reruns every claim many times."""
    import random
    rng = random.Random(seed)
    java = [p for p in pairs if p[0] == "java"]
    graded = [p for p in pairs if p[0] == "grade"]
    half = min(len(graded), k // 2)
    return rng.sample(java, min(len(java), k - half)) + rng.sample(graded, half)


def _commit() -> str:
    return toolchain.git("rev-parse", "HEAD") or "no-git"


def run(runs: int, busy: int, only: str | None = None, rotate: int | None = None, seed: str | None = None) -> int:
    cat = catalog_mod.load()
    pairs = _claims(cat, only, rotate, seed)
    OUT.mkdir(parents=True, exist_ok=True)
    # One file per --only: a long verification done in parts keeps every part's counts.
    written = OUT / (f"verdicts-{re.sub(r'[^A-Za-z0-9_-]', '_', only)}.csv" if only
                     else "verdicts-rotation.csv" if rotate else "verdicts.csv")
    fields = ["kind", "what", "how", "claim", "agreed", "pending", "runs", "seen"]
    rows = []
    with _busy(busy), progress() as bar, written.open("w", newline="") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        task = bar.add_task(f"verifying {len(pairs)} claims, {runs} runs each, {busy} busy loop(s)",
                            total=len(pairs) * runs)
        for kind, a, b, claim in pairs:
            agreed, pending, seen = 0, 0, {}
            for _ in range(runs):
                got = _once(kind, a, b, cat)
                for _ in range(REGRADES - 1):  # "not graded, regrade": as an instructor would
                    if not _unjudged(got):
                        break
                    got = _once(kind, a, b, cat)
                shown = str(got).replace("None", "pending")
                seen[shown] = seen.get(shown, 0) + 1
                if got == claim:
                    agreed += 1
                elif got is None or kind == "grade" and all(g is None or g == c for g, c in zip(got, claim)):
                    pending += 1  # what it judged is the claim's; the rest it could not judge here
                bar.update(task, advance=1, description=f"{a} {b}: {agreed} agree")
            rows.append({"kind": kind, "what": a, "how": b, "claim": str(claim), "agreed": agreed,
                         "pending": pending, "runs": runs, "seen": "; ".join(f"{k} x{n}" for k, n in seen.items())})
            w.writerow(rows[-1])
            f.flush()  # a verification stopped half way (hours, for every sample) keeps each pair it finished
    return _report(rows, runs, busy, written)


def _claims(cat, only: str | None, rotate: int | None, seed: str | None) -> list[tuple]:
    """(kind, what, how, claim) of every claim to verify: each catalogued Java verdict of the ci tier and each
    sample's marks, those --only names, or --rotate's few."""
    pairs = [("java", v.name, checker, v.expected(checker)) for v in cat.variants.values() if v.java_class
             and v.tier == "ci" for checker in (*catalog_mod.JAVA_CHECKERS, "trace", "jcstress")
             if v.expected(checker) is not None]
    pairs += [("grade", lab, name, marks) for lab, samples in sample_marks().items() for name, marks in samples.items()]
    if only:
        pairs = [p for p in pairs if only in (p[1], p[2], f"{p[1]}/{p[2]}")]
    if not pairs:
        raise LabError(f"nothing to verify matches '{only}'",
                       "name a catalog variant, a checker, a lab, a sample, or a lab's sample as LAB/SAMPLE")
    if rotate:
        seed = seed or _commit()
        # jcstress's claims take minutes each (its tests run every core for their time): `--only jcstress` runs them,
        # the full tier runs each once; CI's few minutes of rotation take the others
        pairs = rotation([p for p in pairs if p[2] != "jcstress"], rotate, seed)
        console.print(f"verify-verdicts: {len(pairs)} claims chosen by {seed[:12]}: "
                      + ", ".join(f"{a}/{b}" for _, a, b, _ in pairs))
    return pairs


def _report(rows: list[dict], runs: int, busy: int, written: Path) -> int:
    """The table of what each claim's runs gave, and the exit code: 1 if a judged run disagreed with its claim."""
    table = Table(title=f"verify-verdicts: {runs} runs, {busy} busy loop(s)")
    for col in ("kind", "what", "how", "claim", "agreed", "pending", "seen"):
        table.add_column(col, overflow="fold")
    for r in rows:
        mark = "[green]" if r["agreed"] == runs else "[yellow]" if r["agreed"] + r["pending"] == runs else "[red]"
        table.add_row(r["kind"], r["what"], r["how"], r["claim"], f"{mark}{r['agreed']}/{runs}",
                      str(r["pending"] or ""), r["seen"])
    console.print(table)
    short = [r for r in rows if r["agreed"] + r["pending"] < runs]
    unjudged = [r for r in rows if r["pending"] and r not in short]
    if short:
        bad(f"{len(short)} claim(s) did not hold every run → {written}")
    else:
        ok(f"every claim held in every run it was judged in → {written}")
    if unjudged:  # said, never counted as held: the grader's "not graded, regrade", every regrade
        bad(f"{len(unjudged)} claim(s) were not fully judged in some run: {REGRADES} times in a row the machine was "
            "too busy (a grading's 'not graded, regrade', a check's no verdict by the grader's rules) "
            f"({', '.join(r['what'] + '/' + r['how'] for r in unjudged)}); what was judged matched the claim. "
            "Run them again on a quieter machine")
    print(f"verify-verdicts: {len(rows) - len(short) - len(unjudged)} passed, {len(short)} failed"
          + (f", {len(unjudged)} not fully judged (machine too busy)" if unjudged else ""))
    return 1 if short else 0


def _unjudged(got) -> bool:
    """A run the grader's rules call "not graded, regrade": a grading with a pending test, a check with no verdict."""
    return got is None or isinstance(got, list) and None in got


def _once(kind: str, a: str, b: str, cat):
    """What one run gave: a Java check's verdict (None: no verdict twice, on a machine too busy for it, by the
    grader's two rules), or a grading's marks (None for a pending test)."""
    if kind == "java":
        v = cat.variant(a)
        if b == "trace":  # one check: ten recorded runs, each judged by TLC
            return tracecheck.check_variant(v).verdict
        o = javacheck.check_pair(v, b)
        return None if unjudged_for_load(o) else o.got
    return marks(grade_sample(a, b, OUT / "last" / a / b))


def unjudged_for_load(o: javacheck.JavaOutcome) -> bool:
    """Whether a Java check gave no verdict twice for the machine's load, by the grader's two rules: its threads
    starved by other work (javacheck.starved), or other work kept the cores busy (budgets.too_busy)."""
    return o.got == "incomplete" and (javacheck.starved(o.stats) or budgets.too_busy(o.stats.get("others_cores", 0)))


def grade_sample(lab: str, name: str, out: Path, allow_weak_isolation: bool = False) -> grader.Grade:
    """The grading of one sample of expected.toml (or the lab's starter), into `out`."""
    return grader.grade(lab, sample_path(lab, name), out, allow_weak_isolation=allow_weak_isolation)


def marks(g: grader.Grade) -> list[float | None]:
    """A grading's marks, test by test; None for a test not graded ("regrade": a busy machine)."""
    return [None if t.pending else t.score for t in g.tests]
