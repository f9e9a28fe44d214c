"""`dht`: the submitted completion queue in the kit's distributed hash table (java/dht), p separate
JVM processes on loopback, each a target whose service thread uses the queue and an origin running
Malard & Stewart's micro-benchmark; and the kit's own queue (DepthQueue) on the same load, run by
run in turn, so that a busy machine slows both alike."""
from __future__ import annotations

import json
import shlex

from grader import budgets, feedback, sidebyside
from grader.context import Context
from grader.jail import MalformedReport, read_report
from handofflab.java import javabuild
from handofflab.ground import toolchain

KIND = "dht"
NEEDS = ("junit", "checker")   # a queue that loses buffers would leave every process waiting
KIT = "DepthQueue"


def score(ctx: Context) -> None:
    """`exactly-once`: in every run of the submitted queue, every process stored, found and deleted each of
    its values exactly once and ended cleanly; `efficiency`: the fastest run of the submitted queue (its
    slowest process's time per value, summed over the three phases) at least `target` times as fast as
    the kit's fastest, the two run in turn; a queue that falls short runs `runs` more times, the kit's
    first, before it fails (grader/sidebyside.py's rule). Counted only when exactly-once holds and the depth
    probe passed."""
    tests = ctx.tests(KIND)
    if _held_back(ctx, tests):
        return
    # Speed counts for a queue that pipelines: one the depth probe saw wait within its depth runs at 0.70-0.77 of
    # the kit's here (measured), on either side of the bar by luck, and one that naps past its depth passed the bar
    # beside other load; their behaviour, not the ratio, decides.
    depth = [r for s, r in ctx.tests("checker") if "depth" in s.checkers and r.score < r.max_score]
    x = ctx.rubric.dht
    rows = _rounds(ctx, 1, x["runs"], yours_first=True)
    target = next((spec.target for spec, _ in tests if spec.check == "efficiency"), None)
    if target and sidebyside.measure_again(_ratio(rows), target, _once(rows, x) and not any(r["timed_out"] for r in rows)):
        rows += _rounds(ctx, x["runs"] + 1, 2 * x["runs"], yours_first=False)
    table = _table(rows)
    timed_out = [r for r in rows if r["timed_out"]]
    failed = [r for r in rows if r["queue"] == "yours" and not r["ok"] and not r["timed_out"]]
    ratio = _ratio(rows)
    for spec, result in tests:
        if timed_out and not failed:
            result.pending = True
            result.output = (f"Not graded: a run took longer than {budgets.DHT_SECONDS} s with every finished run "
                             "exactly once. The grading machine was too busy: your instructor will regrade.\n\n" + table)
        elif spec.check == "exactly-once":
            if not failed:
                result.score = result.max_score
                result.output = "Passed: every value stored, found and deleted exactly once, in every process.\n\n" + table
            else:
                result.output = (f"Failed: {failed[0]['why']}" + feedback.hint(ctx.rubric, "early") + "\n\n" + table)
        elif failed:
            result.output = "Not counted: every value must be stored, found and deleted exactly once first."
        elif depth:
            result.output = ("Not counted: the depth probe failed (above): how your service thread waits is not the "
                             "pipelining this test measures, whatever its speed on this machine.\n\n" + table)
        else:
            _speed(ctx, spec, result, rows, ratio, table)


def _held_back(ctx: Context, tests) -> bool:
    """Whether the tests it needs (the public ones, the reply probe) keep these from running: pending or failed."""
    before = ctx.tests("junit") + [(s, r) for s, r in ctx.tests("checker") if "replies" in s.checkers]
    if any(r.pending for _, r in before):
        for _, result in tests:
            result.pending = True
            result.output = "Not graded: a test it needs could not be graded. Your instructor will regrade."
        return True
    if any(r.score < r.max_score for _, r in before):
        for _, result in tests:
            result.output = ("Not run: the public tests and the reply probe must pass first (a queue that keeps or "
                             "loses buffers would leave every process waiting).")
        return True
    return False


def _speed(ctx: Context, spec, result, rows: list[dict], ratio: float, table: str) -> None:
    """The efficiency test of a queue that is exactly once and pipelines: its fastest run against the kit's."""
    best, kit = _best(rows, "yours"), _best(rows, "the kit's")
    n = sum(r["queue"] == "yours" for r in rows)
    if not kit or not best:
        result.pending = True
        result.output = ("Not graded: the kit's queue could not be measured beside yours (a port taken, the "
                         "machine too busy?). Your instructor will regrade.\n\n" + table)
    elif ratio >= spec.target:
        result.score = result.max_score
        result.output = (f"Passed: your fastest run took {best:.1f} µs per value, {ratio:.2f} × the "
                         f"speed of the kit's fastest, {kit:.1f} µs, in the same {n} rounds (≥ {spec.target}).\n\n"
                         + table)
    else:
        result.output = (f"Failed: your fastest run of {n} took {best:.1f} µs per value, {ratio:.2f} × the "
                         f"speed of the kit's fastest, {kit:.1f} µs (< {spec.target}): the service thread "
                         "waits for replies it need not wait for." + feedback.hint(ctx.rubric, "slow")
                         + "\n\n" + table)


def _rounds(ctx: Context, first: int, last: int, yours_first: bool) -> list[dict]:
    rows = []
    for rep in range(first, last + 1):
        order = [("yours", ctx.rubric.cls), ("the kit's", KIT)]
        for queue, cls in (order if yours_first else order[::-1]):
            rows.append(_run(ctx, rep, queue, cls))
    return rows


def _run(ctx: Context, rep: int, queue: str, cls: str) -> dict:
    """One run: p DhtMain processes in the jail, each with `cls` as its targets' completion queue; again on
    other ports if one was taken meanwhile (without a network namespace, another program may take it)."""
    for _ in range(3):
        row = _run_once(ctx, rep, queue, cls)
        if "cannot listen on" not in row["why"]:
            break
    return row


def _run_once(ctx: Context, rep: int, queue: str, cls: str) -> dict:
    x, tmp = ctx.rubric.dht, ctx.tmp
    p = x["processes"]
    peers = ",".join(f"127.0.0.1:{port}" for port in toolchain.free_ports(p))
    # the kit's runs hold no submitted class: nothing of the judged runs beside the judge's measurement
    cp = (f"{tmp / 'classes'}:" if queue == "yours" else "") + javabuild.classpath("dht")
    name = f"dht-{rep}-{'yours' if queue == 'yours' else 'kit'}"
    q = shlex.quote
    script = " ".join(
        f"(java -Xmx256m -cp {q(cp)} handofflab.dht.DhtMain --id {i} --peers {peers} --pattern {q(x['pattern'])} "
        f"--values {int(x['values'])} --n {int(x['n'])} --L {int(x['L'])} --q {int(x['q'])} --completions {q(cls)} "
        f"> {q(str(tmp / f'{name}-{i}.json'))} 2> {q(str(tmp / f'{name}-{i}.err'))}; "
        f"echo $? > {q(str(tmp / f'{name}-{i}.rc'))}) &"
        for i in range(p)) + " wait"
    run = ctx.jail.run(["sh", "-c", script], timeout=budgets.DHT_SECONDS)
    row = {"rep": rep, "queue": queue, "timed_out": run.timed_out, "ok": False, "us": 0.0, "wrong": 0, "why": ""}
    if run.timed_out:
        row["why"] = f"did not finish within {budgets.DHT_SECONDS} s"
        return row
    whys, us = [], []
    for i in range(p):
        try:
            rc = read_report(tmp / f"{name}-{i}.rc").strip()
            err = read_report(tmp / f"{name}-{i}.err").strip()
            out = read_report(tmp / f"{name}-{i}.json").strip()
            line = json.loads(out.splitlines()[-1]) if out else None
        except (MalformedReport, ValueError, IndexError):
            rc, err, line = "?", "", None
        last = (err.splitlines() or ["(nothing on standard error)"])[-1][:600]
        if line is not None:
            row["wrong"] += int(line.get("wrong", 0))
            us.append(sum(float(v) for v in line.get("barrier_us_per_value", [])))
        if rc != "0" or line is None or line.get("wrong"):
            whys.append(f"process {i} " + (f"found {line['wrong']} values lost, duplicated or changed (the first: "
                                           f"{line.get('first_wrong', '')})" if line and line.get("wrong") else
                                           f"ended with exit code {rc}: {last}"))
    row["ok"] = not whys and len(us) == p
    row["us"] = max(us) if us else 0.0
    row["why"] = "; ".join(whys[:2]) if whys else "ok"
    return row


def _once(rows: list[dict], x: dict) -> bool:
    yours = [r for r in rows if r["queue"] == "yours"]
    return len(yours) == x["runs"] and all(r["ok"] for r in yours)


def _best(rows: list[dict], queue: str) -> float:
    """The fastest run's time per value (µs), of the runs that ended cleanly; 0 if none."""
    return min((r["us"] for r in rows if r["queue"] == queue and r["ok"] and r["us"] > 0), default=0.0)


def _ratio(rows: list[dict]) -> float:
    return sidebyside.fastest_ratio(*([r["us"] for r in rows if r["queue"] == q and r["ok"]] for q in ("yours", "the kit's")),
                                    larger_is_faster=False)


def _table(rows: list[dict]) -> str:
    return ("| run | queue | µs per value (slowest process, 3 phases) | wrong | status |\n|---|---|---|---|---|\n" +
            "".join(f"| {r['rep']} | {r['queue']} | {r['us']:.1f} | {r['wrong']} | "
                    f"{'timed out' if r['timed_out'] else r['why']} |\n" for r in rows))
