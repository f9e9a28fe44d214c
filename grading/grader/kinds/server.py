"""`server`: the papers' experiment (ServerBench: real TCP on 127.0.0.1, the load client) on the
kit's PreThreadedServer with the submitted handoff, and with the kit's own handoff for the same
design, run by run in turn on the same load, so that a busy machine slows both alike."""
from __future__ import annotations

import csv
import io

from grader import budgets, feedback
from grader.context import Context
from grader.jail import MalformedReport, ended_early, read_report
from handofflab import javabuild

KIND = "server"
NEEDS = ("junit",)   # a handoff that fails one thread would hang 2000 clients


def score(ctx: Context) -> None:
    """Runs the papers' experiment (ServerBench: real TCP on 127.0.0.1, the load client) on the
    kit's PreThreadedServer with the submitted handoff, and with the kit's own handoff for the
    same design, run by run in turn on the same load. `exactly-once`: every run of the submitted
    handoff answered each request once and the server drained; `efficiency`: its median
    efficiency (Little's-law bound / time) at least `target` times the kit's, measured side by
    side, so that a busy grading machine slows both alike; counted only when exactly-once holds."""
    rubric, tmp, jail = ctx.rubric, ctx.tmp, ctx.jail
    x = rubric.server
    tests = ctx.tests(KIND)
    if any(r.score < r.max_score for _, r in ctx.tests("junit")):
        for _, result in tests:  # a handoff that fails one thread would hang 2000 clients
            result.output = "Not run: the public test must pass first."
        return
    csv_out = tmp / "server-runs.csv"
    shape = f"{x['t_r']}:{x['workers']}:{x['slots']}"
    fill = f"{x['t_r']}:{x['fill_workers']}:{x['fill_slots']}:{x['fill_requests']}"
    # A lost request must read as lost within the budget: a client waits at most REPLY_MS for a reply.
    run = jail.run(["java", f"-Dhandofflab.reply.ms={budgets.SERVER_REPLY_MS}", "-Dhandofflab.stop.on.failure=true", "-cp",
                    f"{tmp / 'classes'}:{javabuild.classpath('servers')}",
                    "handofflab.servers.ServerBench", str(csv_out), str(x["runs"]), str(x["children"]),
                    str(x["requests"]), f"{x['design']}@{rubric.cls}:{shape}", f"{x['design']}:{shape}",
                    f"{x['design']}@{rubric.cls}:{fill}"],
                   timeout=budgets.SERVER_SECONDS)
    try:
        rows = list(csv.DictReader(io.StringIO(read_report(csv_out)))) if csv_out.exists() else []
        for r in rows:
            float(r["efficiency"]), r["status"], r["rep"], r["design"]  # noqa: B018 (the columns scored below)
    except (MalformedReport, KeyError, ValueError, TypeError, csv.Error):
        rows = []  # malformed: scored as runs that did not finish
    yours = [r for r in rows if "@" in r["design"]]
    kits = [r for r in rows if "@" not in r["design"]]
    measured = [r for r in yours if r.get("slots") == str(x["slots"]) and r.get("workers") == str(x["workers"])]
    table = ("| run | handoff | workers | slots | seconds | bound s | efficiency | lost | duplicated | status |\n"
             "|---|---|---|---|---|---|---|---|---|---|\n" +
             "".join(f"| {r['rep']} | {'yours' if '@' in r['design'] else 'the kit' + chr(39) + 's'} | "
                     f"{r.get('workers')} | {r.get('slots')} | "
                     f"{r['seconds']} | {r['bound_seconds']} | {r['efficiency']} | {r['lost']} | {r['duplicated']} "
                     f"| {r['status']} |\n" for r in rows))
    complete = len(yours) == 2 * int(x["runs"])
    failed = [r for r in yours if r["status"] != "ok"]  # the bench stops at the first such run
    once = complete and not failed
    median = _median(float(r["efficiency"]) for r in measured if r["status"] == "ok")
    baseline = _median(float(r["efficiency"]) for r in kits if r["status"] == "ok")
    why = ("" if complete or failed or run.timed_out else
           f"Only {len(yours)} of {2 * int(x['runs'])} runs finished.\n\n" + ended_early("the server", run))
    if run.timed_out and not failed:
        # A hang cannot hold the runs past the budget: a client counts a request with no reply
        # within budgets.SERVER_REPLY_MS as lost, and the first loss ends the benchmark. So this is load.
        for _, result in tests:
            result.pending = True
            result.output = (f"Not graded: the runs took longer than {budgets.SERVER_SECONDS} s, with every finished run "
                             f"exactly once (a hang would have shown as a request lost within "
                             f"{budgets.SERVER_REPLY_MS // 1000} s). The grading machine was too busy, or the handoff is "
                             "very slow: your instructor will regrade.\n\n" + table)
        return
    for spec, result in tests:
        if spec.check == "exactly-once":
            if once:
                result.score, result.output = result.max_score, "Passed: every request answered exactly once.\n\n" + table
            else:
                full = any(r.get("slots") == str(x["fill_slots"]) for r in failed)
                result.output = (why or "Failed: requests were lost, duplicated or invented, or the server did not "
                                 "drain (the status column says which)." + (
                                     f" It failed on the load that fills the ring: {x['fill_workers']} workers for "
                                     f"{x['children']} clients and {x['fill_slots']} slots, so the acceptor meets a "
                                     "full ring and the ring wraps every few connections. Does put wait while the "
                                     "ring is full, and does every index wrap?" if full else "")) \
                    + feedback.hint(rubric, "loss") + "\n\n" + table
        else:  # efficiency (the rubric loader admits no other check)
            target = spec.target
            if not once:
                result.output = "Not counted: the server must serve every request exactly once first."
            elif not baseline or len(kits) < int(x["runs"]):
                result.pending = True
                result.output = ("Not graded: the kit's own handoff could not be measured beside yours (the grading "
                                 "machine was too busy?). Your instructor will regrade.\n\n" + table)
            elif median / baseline >= target:
                result.score = result.max_score
                result.output = (f"Passed: median efficiency {median:.3f}, {median / baseline:.2f} × the kit's "
                                 f"{baseline:.3f} in the same runs (≥ {target}).\n\n" + table)
            else:
                result.output = (f"Failed: median efficiency {median:.3f} is {median / baseline:.2f} × the kit's "
                                 f"{baseline:.3f} in the same runs (< {target}): the handoff holds the server back. "
                                 "What does a thread that cannot go on do: wait to be woken, or spin?"
                                 + feedback.hint(rubric, "slow") + "\n\n" + table)


def _median(values) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0
