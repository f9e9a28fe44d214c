"""`server`: the papers' experiment (ServerBench: real TCP on 127.0.0.1, the load client) on the
kit's PreThreadedServer with the submitted handoff, and with the kit's own handoff for the same
design, run by run in turn on the same load, so that a busy machine slows both alike. Each side is
judged by its fastest run: a busy machine can only add time to a run, never take it away."""
from __future__ import annotations

import csv
import dataclasses
import io
import os
import time

from grader import budgets, feedback, sidebyside
from grader.context import Context
from grader.jail import MalformedReport, ended_early, read_report
from handofflab.ground import catalog
from handofflab.java import javabuild

KIND = "server"
NEEDS = ("junit",)   # a handoff that fails one thread would hang 2000 clients
SPIN_CPU = 2.0       # a short ratio with this many times the kit's CPU is the handoff's own, however busy the machine
FLOOR = 0.5          # and so is one under this: see _efficiency


def score(ctx: Context) -> None:
    """Runs the papers' experiment (ServerBench: real TCP on 127.0.0.1, the load client) on the
    kit's PreThreadedServer with the submitted handoff, and with the kit's own handoff for the
    same design, run by run in turn on the same load. `exactly-once`: every run of the submitted
    handoff answered each request once and the server drained; `efficiency`: its best efficiency
    (Little's-law bound / time) at least `target` times the kit's best, measured side by side;
    counted only when exactly-once holds. The comparison is grader/sidebyside.py's rule: fastest run
    against fastest run, and `runs` more of each, the kit's first, before a fail."""
    tests = ctx.tests(KIND)
    if any(r.score < r.max_score for _, r in ctx.tests("junit")):
        for _, result in tests:  # a handoff that fails one thread would hang 2000 clients
            result.output = "Not run: the public test must pass first."
        return
    run, rows = _bench(ctx)
    b = _Bench(ctx.rubric.server, run, rows)
    target = next((spec.target for spec, _ in tests if spec.check == "efficiency"), None)
    if target and sidebyside.measure_again(b.ratio, target, b.once and not run.timed_out):
        again, more = _bench(ctx, again=True)  # the kit's run first: no side always goes first
        b = _Bench(ctx.rubric.server, run, rows + more)  # a run that lost a request here counts, too
        b.unsettled = again.timed_out and not b.failed
    if (run.timed_out or b.late) and not b.failed:
        # A hang cannot hold the runs past the budget: a client counts a request with no reply
        # within SERVER_REPLY_MS as lost, and the first loss ends the benchmark. So this is load.
        # A late run is load too: replies the client gave up on, for connections the server's own
        # ledger shows each taken by one worker and served, the server drained.
        why = (f"the server had not drained {budgets.SERVER_REPLY_MS // 1000} s after the load, with its threads "
               f"still running and no loss proven, while other work on the grading machine kept "
               f"{_others(b.undrained[0]):.1f} of its {os.cpu_count() or 1} cores busy" if b.undrained else
               f"some replies came later than {budgets.SERVER_REPLY_MS // 1000} s, although the server took every "
               "connection exactly once and drained" if b.late else
               f"the runs took longer than {budgets.SERVER_SECONDS} s, with every finished run exactly once (a hang "
               f"would have shown as a request lost within {budgets.SERVER_REPLY_MS // 1000} s)")
        for _, result in tests:
            result.pending = True
            result.output = (f"Not graded: {why}. The grading machine was too busy, or the handoff is very slow: "
                             "your instructor will regrade.\n\n" + b.table)
        return
    for spec, result in tests:
        (_exactly_once if spec.check == "exactly-once" else _efficiency)(spec, result, b, ctx.rubric)


def _bench(ctx: Context, again: bool = False) -> tuple:
    """ServerBench in the jail: the submitted handoff and the kit's, run by run in turn, then the
    submitted one on the load that fills the ring; `again`: the kit's and the submitted one only,
    in the other order. Each run is a JVM of its own, and the kit's runs have no submitted class on
    their class path: the judged code is not running while the judge measures (a handoff whose own
    threads spun beside the kit's runs in one JVM halved the kit's efficiency, issue 51). One run
    (the handoff, the load, the machine) and the next alternate, so load slows both sides alike.
    The combined run (timed out if the budget ran out) and the rows of the CSVs, [] if malformed."""
    x, cls, tmp = ctx.rubric.server, ctx.rubric.cls, ctx.tmp
    shape = f"{x['t_r']}:{x['workers']}:{x['slots']}"
    fill = f"{x['t_r']}:{x['fill_workers']}:{x['fill_slots']}:{x['fill_requests']}"
    points = ([f"{x['design']}:{shape}", f"{x['design']}@{cls}:{shape}"] if again else
              [f"{x['design']}@{cls}:{shape}", f"{x['design']}:{shape}", f"{x['design']}@{cls}:{fill}"])
    deadline = time.monotonic() + budgets.SERVER_SECONDS
    rows, outputs, run = [], [], None
    first = int(x["runs"]) if again else 0  # numbered on from the first runs
    for rep in range(1, int(x["runs"]) + 1):
        for i, point in enumerate(points):
            csv_out = tmp / f"server-run-{'again-' if again else ''}{rep}-{i}.csv"
            classpath = (f"{tmp / 'classes'}:" if "@" in point else "") + javabuild.classpath("servers")
            # A lost request must read as lost within the budget: a client waits at most REPLY_MS for a reply.
            run = ctx.jail.run(["java", f"-Dhandofflab.reply.ms={budgets.SERVER_REPLY_MS}",
                                "-Dhandofflab.stop.on.failure=true", f"-Dhandofflab.designs={catalog.load().design_table()}",
                                "-cp", classpath, "handofflab.servers.ServerBench", str(csv_out), "1", str(x["children"]),
                                str(x["requests"]), point], timeout=max(1.0, deadline - time.monotonic()))
            outputs.append(run.output)
            found = _rows(csv_out)
            for r in found:  # what the run cost, counted outside it: its own CPU and the machine's other work
                r["rep"], r["cpu_s"], r["others"] = str(rep + first), f"{run.cpu_s:.2f}", f"{run.others_cores:.2f}"
            rows += found
            if run.timed_out or ("@" in point and (not found or any(r["status"] != "ok" for r in found))):
                # a grader needs one failed (or late) run of yours, not three
                return _combined(run, outputs), rows
    return _combined(run, outputs), rows


def _rows(csv_out) -> list[dict]:
    """The rows of one ServerBench CSV, [] if it is missing or malformed (scored as runs that did not finish)."""
    try:
        rows = list(csv.DictReader(io.StringIO(read_report(csv_out)))) if csv_out.exists() else []
        for r in rows:
            float(r["efficiency"]), r["status"], r["rep"], r["design"]  # noqa: B018 (the columns scored below)
    except (MalformedReport, KeyError, ValueError, TypeError, csv.Error):
        rows = []
    return rows


def _others(row: dict) -> float:
    """The cores other work kept busy while a run ran, as the jail counted them outside it (0 if unknown)."""
    try:
        return float(row.get("others") or 0)
    except ValueError:
        return 0.0


def _combined(last, outputs: list[str]):
    """One run standing for the JVMs: the last one's exit, every one's output (the tail is what a student reads)."""
    return dataclasses.replace(last, output="\n".join(outputs)[-20_000:])


class _Bench:
    """What the rows say: the submitted handoff's runs and the kit's, whether they completed,
    which failed, the best efficiency of each, and the table the student reads."""

    def __init__(self, x: dict, run, rows: list[dict]):
        self.x, self.runs = x, int(x["runs"])
        yours = [r for r in rows if "@" in r["design"]]
        self.kits = [r for r in rows if "@" not in r["design"]]
        measured = [r for r in yours if r.get("slots") == str(x["slots"]) and r.get("workers") == str(x["workers"])]
        self.complete = len(yours) >= 2 * self.runs
        # ServerBench's "late:" runs failed only on the client's clock (see score), and its "undrained:" ones on the
        # server's (threads still running when the grace ended, no loss proven): on a busy machine, those are load
        # (the spinning sample, 1.7 of 2 cores busy with other work: 42 replies not received, not drained); on a
        # quiet one, a handoff too slow to drain fails. The bench stops at the first.
        self.undrained = [r for r in rows if r["status"].startswith("undrained:") and budgets.too_busy(_others(r))]
        self.late = any(r["status"].startswith("late:") for r in rows) or bool(self.undrained)
        self.failed = [r for r in yours if r["status"] != "ok" and not r["status"].startswith("late:")
                       and r not in self.undrained]
        self.once = self.complete and not self.failed
        clean = [float(r["efficiency"]) for r in measured if r["status"] == "ok"]
        kits_clean = [float(r["efficiency"]) for r in self.kits if r["status"] == "ok"]
        self.best, self.baseline = max(clean, default=0.0), max(kits_clean, default=0.0)
        self.ratio = sidebyside.fastest_ratio(clean, kits_clean, True)
        # What a short ratio is blamed on (see _efficiency): the CPU each side's cheapest run used, and the
        # other work on the machine while the efficiency runs ran, both counted by the jail, outside the runs
        cpu = [float(r.get("cpu_s") or 0) for r in measured if r["status"] == "ok"]
        kits_cpu = [float(r.get("cpu_s") or 0) for r in self.kits if r["status"] == "ok"]
        self.cpu, self.kits_cpu = min(cpu, default=0.0), min(kits_cpu, default=0.0)
        self.cpu_ratio = self.cpu / self.kits_cpu if self.cpu and self.kits_cpu else 0.0
        others = [_others(r) for r in measured + self.kits]
        self.others = sum(others) / len(others) if others else 0.0
        self.unsettled = False  # the second round of runs ran out of time
        self.why = ("" if self.complete or self.failed or run.timed_out else
                    f"Only {len(yours)} of {2 * self.runs} runs finished.\n\n" + ended_early("the server", run))
        self.table = ("| run | handoff | workers | slots | seconds | bound s | efficiency | CPU s | other work, cores "
                      "| lost | duplicated | status |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n" +
                      "".join(f"| {r['rep']} | {'yours' if '@' in r['design'] else 'the kit' + chr(39) + 's'} | "
                              f"{r.get('workers')} | {r.get('slots')} | {r['seconds']} | {r['bound_seconds']} | "
                              f"{r['efficiency']} | {r.get('cpu_s', '?')} | {r.get('others', '?')} | {r['lost']} | {r['duplicated']} | {r['status']} |\n" for r in rows))


def _exactly_once(spec, result, b: _Bench, rubric) -> None:
    if b.once:
        result.score, result.output = result.max_score, "Passed: every request answered exactly once.\n\n" + b.table
        return
    x = b.x
    full = any(r.get("slots") == str(x["fill_slots"]) for r in b.failed)
    result.output = (b.why or "Failed: requests were lost, duplicated or invented, or the server did not drain (the "
                     "status column says which)." + (
                         f" It failed on the load that fills the ring: {x['fill_workers']} workers for "
                         f"{x['children']} clients and {x['fill_slots']} slots, so the acceptor meets a full ring "
                         "and the ring wraps every few connections. Does put wait while the ring is full, and does "
                         "every index wrap?" if full else "")) + feedback.hint(rubric, "loss") + "\n\n" + b.table


def _efficiency(spec, result, b: _Bench, rubric) -> None:
    """A short ratio is the handoff's own on a quiet machine. On a busy one (the grader counts the other work,
    which a submission cannot raise from inside its jail) the time alone cannot tell, so it is blamed on the
    handoff only by what the handoff itself did: it used SPIN_CPU times the kit's CPU for the same requests
    (its threads ran instead of waiting), or it ran under FLOOR times the kit's, slower than any load has made
    a handoff that waits; else "not graded, regrade". Measured on 2 cores (fastest run against fastest;
    cheapest run's CPU against the kit's cheapest, in one grading): a waiting handoff 0.98-1.02 quiet and
    beside two busy loops, 0.82-1.05 beside another grading, its CPU 0.84-1.03 times the kit's; a spinning
    one 0.16-0.50, with 4.1-5.6 times the kit's CPU."""
    target, best, baseline, n = spec.target, b.best, b.baseline, len(b.kits)
    cores = os.cpu_count() or 1
    if not b.once:
        result.output = "Not counted: the server must serve every request exactly once first."
    elif not baseline or len(b.kits) < b.runs or b.unsettled:
        result.pending = True
        result.output = ("Not graded: the kit's own handoff could not be measured beside yours (the grading "
                         "machine was too busy?). Your instructor will regrade.\n\n" + b.table)
    elif b.ratio >= target:
        result.score = result.max_score
        result.output = (f"Passed: best efficiency {best:.3f}, {b.ratio:.2f} × the kit's best {baseline:.3f} in "
                         f"the same {n} rounds (≥ {target}).\n\n" + b.table)
    elif (budgets.too_busy(b.others) and b.cpu_ratio < SPIN_CPU and b.ratio >= FLOOR):
        result.pending = True
        result.output = (f"Not graded: best efficiency {best:.3f} is {b.ratio:.2f} × the kit's best {baseline:.3f} "
                         f"(< {target}), but while the runs ran, other work on the grading machine kept {b.others:.1f} "
                         f"of its {cores} cores busy, and your handoff used no more CPU than the kit's "
                         f"({b.cpu:.2f} s against {b.kits_cpu:.2f} s in the cheapest run of each): its time may be the "
                         "machine's, not your code's. Your instructor will regrade.\n\n" + b.table)
    else:
        spins = b.cpu_ratio >= SPIN_CPU
        result.output = (f"Failed: best efficiency {best:.3f} in {n} runs is {b.ratio:.2f} × the kit's best "
                         f"{baseline:.3f} in the same rounds (< {target}): the handoff holds the server back. " +
                         (f"Its cheapest run used {b.cpu:.2f} s of CPU for the same requests as the kit's "
                          f"{b.kits_cpu:.2f} s ({b.cpu_ratio:.1f} ×): its threads keep running when they have "
                          "nothing to do. " if spins else "") +
                         "What does a thread that cannot go on do: wait to be woken, or spin?"
                         + feedback.hint(rubric, "slow") + "\n\n" + b.table)
