"""`./lab check trace`: trace validation. A Java run of a handoff is recorded from outside the class
(every put and take as it begins and returns, on one logical clock; TraceRecord.java), and TLC decides
whether the run is a behaviour of the design's spec (specs/<trace spec>.tla, named in the catalog's
[handoff] as `trace`). It sees what stress and model checking of exactly-once cannot: a class that
serves every connection once, but not as its design says (a stack where the design has a ring).
One run is one behaviour: a run that happens not to show a bug proves nothing about it."""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from handofflab.ground import catalog as catalog_mod, paths, toolchain
from handofflab.java import javacheck
from handofflab.models import tlc
from handofflab.ground.console import LabError, bad, console, ok, progress
from handofflab.ground.swimlanes import Step, Swimlane

OUT = paths.RESULTS / "trace"
RUNS = 10            # recorded runs per variant: a correct class must pass every one
SECONDS = 20         # a run of 200 puts takes milliseconds; a hang is named sooner, by thread states
PROPERTY = "FollowsSpec"  # the verdict when a run is no behaviour of the design: violation:FollowsSpec
GENERIC = "HandoffTrace"  # how a log is read against a design's order and bound; specs/<Design>Trace.tla say which


@dataclass
class TraceOutcome:
    verdict: str           # pass | violation:FollowsSpec | deadlock
    runs: int              # runs recorded and judged
    detail: str
    swimlane: Swimlane | None = None


def rule(handoff: catalog_mod.Handoff) -> str:
    """What a recorded run of this design may not do, in words, read from its trace spec's instance of
    HandoffTrace (Fifo: which connection a take removes; Bound: how many it holds before a put waits)."""
    inst = re.search(r"INSTANCE\s+" + GENERIC + r"\s+WITH\s+Fifo\s*<-\s*(TRUE|FALSE)\s*,\s*Bound\s*<-\s*(\w+)",
                     (paths.SPECS / f"{handoff.trace}.tla").read_text())
    if not inst:
        raise LabError(f"specs/{handoff.trace}.tla does not instantiate {GENERIC} WITH Fifo <- ..., Bound <- ...",
                       "write it as the other *Trace.tla modules do")
    take = ("a take that returns null or a connection other than the oldest held" if inst[1] == "TRUE"
            else "a take that returns null or a connection not held (never put, or taken already)")
    return take + ("" if inst[2] == "0" else ", or a put that returns while every slot is full")


def traceable(cat=None) -> list[catalog_mod.Variant]:
    """The variants with a Java class whose design has a trace spec and whose entry expects a verdict."""
    cat = cat or catalog_mod.load()
    return [v for v in cat.variants.values() if v.java and v.handoff.trace and "trace" in v.expect]


@dataclass
class Recorded:
    run: int          # 1-based
    size: int
    log: list[dict]
    hung: bool        # it stopped before it was through: every thread waited, or one spun and handed nothing over


def handed_over(log: list[dict]) -> int:
    """How many takes returned in a recorded run."""
    return sum(e["kind"] == "end" and e["op"] == "take" for e in log)


def empty_hang(hung: bool, log: list[dict]) -> bool:
    """A run that stopped before any take returned shows only calls that began, which every design
    allows: it is no evidence that the class follows its design, so it passes no trace check."""
    return hung and handed_over(log) == 0


def check_variant(variant: catalog_mod.Variant, runs: int = RUNS, java_class: str | None = None,
                  extra_classpath: str = "", calls_only: bool = False) -> TraceOutcome:
    """Record up to `runs` runs (sizes taken in turn from the profile's stress_sizes), have TLC judge them, one
    run per core at a time, and report the first that is no behaviour of the design."""
    if not variant.handoff.trace:
        raise LabError(f"{variant.handoff.name} has no trace spec", "the catalog's [handoff] names one as trace = ...")
    sizes = variant.profile.stress_sizes or [variant.profile.size]
    cores = os.cpu_count() or 1
    recorded: list[Recorded] = []
    with tempfile.TemporaryDirectory(prefix="trace-") as tmp, ThreadPoolExecutor(max_workers=cores) as pool:
        # a round of one run per core, judged side by side; the first run off the design ends the check
        # (a buggy class is usually off in its first run, and the rest would only say so again)
        while len(recorded) < runs:
            batch = [record(variant, n + 1, sizes[n % len(sizes)], Path(tmp), java_class, extra_classpath, calls_only)
                     for n in range(len(recorded), min(runs, len(recorded) + cores))]
            recorded += batch
            judged = list(pool.map(lambda r: judge(variant.handoff.trace, r.log, r.size, Path(tmp) / f"tlc-{r.run}"),
                                   batch))
            for r, (accepted, furthest) in zip(batch, judged):
                if not accepted:
                    sized = size_note(r.size, variant.profile.sized_by)
                    return TraceOutcome(f"violation:{PROPERTY}", r.run,
                                        f"run {r.run}{sized} is no behaviour of {variant.handoff.spec}: event "
                                        f"{furthest} of {len(r.log)} cannot happen there",
                                        log_swimlane(variant.name, r.log, furthest, sized, variant.handoff.trace_steps))
    empty = next((r for r in recorded if empty_hang(r.hung, r.log)), None)
    if empty:
        sized = size_note(empty.size, variant.profile.sized_by)
        return TraceOutcome("deadlock", empty.run, f"run {empty.run}{sized} stopped before any take "
                            f"returned: {len(empty.log)} calls began and none handed a connection over, so there is "
                            "no behaviour to validate")
    # what a hung run did once it had handed something over is judged like the rest; the hang is stress's to name
    hung = sum(r.hung for r in recorded)
    return TraceOutcome("pass", runs, f"{runs} runs, each a behaviour of {variant.handoff.spec}"
                        + (f" ({hung} stopped, every thread waiting or one spinning, after only what the design allows)"
                           if hung else ""))


def record(variant: catalog_mod.Variant, run: int, size: int, folder: Path, java_class: str | None = None,
           extra_classpath: str = "", calls_only: bool = False) -> Recorded:
    """One run of the class recorded by TraceRecord.java, at one size; `calls_only`: without the steps the kit's
    class logs itself (RecordedHandoff.CALLS_ONLY), as a submitted class is recorded."""
    profile = catalog_mod.CheckProfile.of({**variant.handoff.check, **variant.check, "size": size},
                                          f"variant '{variant.name}'")
    verdict_file = folder / f"run-{run}.json"
    cmd = javacheck.checker_command("trace", java_class or variant.java, profile, verdict_file, SECONDS, extra_classpath)
    if calls_only:
        cmd.insert(1, "-Dhandofflab.trace.calls=true")
    proc = toolchain.run(cmd,
                         f"recording {variant.name}", "run `./lab check trace NAME` alone", timeout=120, check=False)
    events = verdict_file.with_name(verdict_file.name + ".csv")
    if proc.returncode != 0 or not events.exists():
        raise LabError(f"recording {variant.name} failed (exit {proc.returncode}):\n"
                       + "\n".join(proc.stderr.strip().splitlines()[-8:]), "run `./lab check trace NAME` alone")
    recorded = json.loads(verdict_file.read_text())["verdict"]
    if recorded == "incomplete":
        raise LabError(f"a run of {variant.name} did not finish in {SECONDS} s while a thread still ran",
                       "the machine is too busy: run `./lab check trace` again when it is quieter")
    return Recorded(run, size, read_log(events), recorded in ("deadlock", "livelock"))


_EVENT = {"thread": re.compile(r"\d{1,3}"), "kind": re.compile(r"begin|end|threw|get|set|swap|swap-in|claim|peek|free|read|insert|remove|wait|woke|notifyAll|notify|link|unlink|set-head|set-tail"),
          "op": re.compile(r"put|take|slot"), "id": re.compile(r"-?\d{1,9}"), "slot": re.compile(r"-?\d{1,9}")}


def read_log(events: Path) -> list[dict]:
    """A recorded run, each field checked before it goes into a TLA+ module (a grading's run wrote it).
    A call's slot is -1; a step (op slot: the kit's buffers, hash table and pipes log them) names the slot
    (the worker, for the pipes; the count held, for a wait or a notify) it touched."""
    rows = list(csv.DictReader(events.open()))
    for n, row in enumerate(rows, 2):
        if any(not isinstance(row.get(k), str) or not rx.fullmatch(row[k]) for k, rx in _EVENT.items()):
            raise ValueError(f"line {n} of {events.name} is no recorded event: {row}")
    return [{k: row[k] for k in _EVENT} for row in rows]


def judge(trace_spec: str, log: list[dict], capacity: int, folder: Path) -> tuple[bool, int]:
    """TLC on one recorded run: (is it a behaviour of the spec, the furthest event any behaviour reached)."""
    folder.mkdir(parents=True)
    threads = sorted({int(e["thread"]) for e in log}) or [0]
    records = ",\n  ".join(f'[thread |-> {e["thread"]}, kind |-> "{e["kind"]}", op |-> "{e["op"]}", id |-> {e["id"]}, '
                           f'slot |-> {e.get("slot", -1)}]' for e in log)  # a call touches no slot
    (folder / "TraceLog.tla").write_text(
        "---- MODULE TraceLog ----\n\\* One recorded run, written by ./lab check trace (a null id is -1)\nEXTENDS Integers\n"
        f"Capacity == {capacity}\nThreads == {{{', '.join(map(str, threads))}}}\nLog == <<\n  {records}\n  >>\n====\n")
    spec = folder / f"{trace_spec}.tla"
    for module in {trace_spec, GENERIC}:  # each design's trace spec instantiates the generic reading of a log
        shutil.copyfile(paths.SPECS / f"{module}.tla", folder / f"{module}.tla")
    cfg = folder / f"{trace_spec}.cfg"
    cfg.write_text("SPECIFICATION Spec\nINVARIANT Furthest\nINVARIANT NotWholeLog\nCHECK_DEADLOCK FALSE\n")
    (folder / "tmp").mkdir()  # TLC's own java.io.tmpdir: judges run side by side (tlc.command says why)
    proc = toolchain.run(tlc.command(cfg, spec, folder / "meta", folder / "tmp", small=True),
                         f"TLC on a trace of {trace_spec}", "judge a shorter run: with --stress, fewer --events (TLC's "
                         "time and memory grow with the run's length and with what the design holds at once)", cwd=folder,
                         timeout=600, check=False)
    out = proc.stdout + proc.stderr
    furthest = max([int(n) for n in re.findall(r'<<"furthest", (\d+)>>', out)] or [1])
    if "Invariant NotWholeLog is violated" in out:
        return True, len(log) + 1
    if "Model checking completed. No error has been found" in out:
        return False, furthest
    raise LabError("TLC could not judge the trace:\n" + "\n".join(out.strip().splitlines()[-15:]),
                   f"check specs/{trace_spec}.tla (./lab check trace runs TLC on it with each recorded run)")


def log_swimlane(name: str, log: list[dict], furthest: int, sized: str = "", design_steps: str = "") -> Swimlane:
    """The run's last events before the first one the design cannot take, one lane per thread (`sized`: the
    run's size in words, from size_note; `design_steps`: the steps the design takes inside its calls, in words,
    for a log of the kit's class that has them)."""
    def lane(t: str) -> str:  # RecordedHandoff's lanes: 0 the acceptor, 100 + N acceptor N of several
        return "acceptor" if t == "0" else f"acceptor-{int(t) - 100}" if int(t) > 100 else f"worker-{t}"
    lanes = [lane(t) for t in sorted({e["thread"] for e in log}, key=int)]
    lane_of = lambda e: lane(e["thread"])  # noqa: E731
    start = max(0, furthest - 13)
    shown = log[start:furthest]
    if shown:  # the offending thread's call began before the window: show where it began, too
        t = shown[-1]["thread"]
        began = next((i for i in range(furthest - 1, -1, -1) if log[i]["thread"] == t and log[i]["kind"] == "begin"), None)
        if began is not None and began < start:
            shown = [log[began]] + shown[1:]

    def action(e: dict) -> str:
        if e["op"] == "slot":  # a step inside a call, logged by the kit's class (buffer, hash table, pipes)
            held = "empty" if e["id"] == "-1" else e["id"]
            s = e["slot"]
            return {"get": f"reads slot {s}: {held}", "set": f"fills slot {s} with {e['id']}",
                    "swap": f"swaps slot {s} with null: {held}",
                    # the pipes: A is the paper's worker-status array, channel s is worker s's pipe or mailbox
                    "claim": f"marks A[{s}] busy, for {e['id']}", "peek": f"reads A[{s}]: free",
                    "free": f"marks A[{s}] free (its own)", "read": f"reads {e['id']} from channel {s}",
                    # the shared buffer: a wait's, a wake-up's and a notify's number is the count held then
                    "insert": f"fills slot {s} with {e['id']}", "remove": f"empties slot {s}: {held}",
                    "wait": f"wait() ({s} held)", "woke": f"wakes ({s} held)",
                    "notifyAll": "notifyAll()", "notify": "notify()",
                    # the two-lock queue: slot 0 is the tail end, 1 the head end
                    "link": f"links {e['id']} behind the tail", "unlink": f"unlinks the first node: {held}",
                    "set-head": f"sets head to {e['id']}", "set-tail": "sets tail to null",
                    }.get(e["kind"], f"{e['kind']} slot {s}")
        if e["kind"] == "threw":  # no design throws: HandoffTrace has no step that reads it
            return f"{e['op']}() threw"
        if e["kind"] == "begin":
            return f"{e['op']}({e['id']}) begins" if e["op"] == "put" else "take() begins"
        returned = "null" if e["id"] == "-1" else e["id"]
        return f"put({e['id']}) returns" if e["op"] == "put" else f"take() returns {returned}"
    steps = [Step(lane_of(e), action(e)) for e in shown]
    if steps:
        steps[-1] = Step(steps[-1].thread, steps[-1].action + "  ← the design cannot do this")
    return Swimlane(f"{name}, one recorded run", "trace", f"violation:{PROPERTY}", lanes, steps,
                    note=(f"Event {furthest} of {len(log)}{sized}: " + (
                        f"the class logged its steps inside each call, and the design takes no such step there ({design_steps})."
                        if any(e["op"] == "slot" for e in log) else
                        "no order of the calls' effects, each between its call's begin and return, lets the design's "
                        "spec do it.") + " The rows before it are the run's last events."))


def keep(variant: catalog_mod.Variant, outcome: TraceOutcome) -> None:
    """The counterexample saved where the book finds it (generated/trace/NAME.trace.md)."""
    if outcome.swimlane:
        OUT.mkdir(parents=True, exist_ok=True)
        outcome.swimlane.save(OUT / f"{variant.name}.trace")


def check(name: str | None = None, runs: int = RUNS, show_traces: bool = True, handoff: str | None = None,
          calls_only: bool = False) -> bool:
    """Every traceable variant (or one, or a design's), against the catalog; True when all agree. Each claim is
    checked on what the catalog says it rests on (trace_from): a class's calls alone, or its calls and the steps
    the kit's class logs itself; `calls_only`: every claim on calls alone, as a submission is recorded."""
    cat = catalog_mod.load()
    traced, one = traceable(cat), name in cat.variants
    chosen = [v for v in cat.select(name, "full", handoff=handoff) if one or v in traced]
    if one and chosen[0] not in traced:
        raise LabError(f"{name} has no catalogued trace verdict",
                       f"traceable: {', '.join(v.name for v in traced)}")
    all_agree = True
    with progress() as bar:
        task = bar.add_task("trace validation", total=len(chosen))
        results = []
        for v in chosen:
            bar.update(task, description=f"trace: {v.name}")
            outcome = check_variant(v, runs, calls_only=calls_only or v.trace_from == "calls")
            results.append((v, outcome))
            bar.advance(task)
    for v, outcome in results:
        expected = v.expected("trace")
        agrees = outcome.verdict == expected
        all_agree &= agrees
        rests = (", recorded from its calls alone" if calls_only or v.trace_from == "calls" else
                 ", recorded from its calls and the steps it logs itself")
        (ok if agrees else bad)(f"{v.name}: {outcome.verdict}{rests} ({outcome.detail})"
                                + ("" if agrees else f" — the catalog says {expected}"))
        keep(v, outcome)
        if outcome.swimlane and show_traces:
            outcome.swimlane.show()
    console.print(f"{sum(o.verdict == v.expected('trace') for v, o in results)} of {len(results)} agree with the catalog")
    return all_agree


STRESS_EVENTS = 40_000  # a stress trial's first events TLC judges by default: about 10 000 handoffs, ~20 s of TLC


def check_stress(variant: catalog_mod.Variant, events: int = STRESS_EVENTS) -> tuple[dict, TraceOutcome]:
    """Stress with trace validation switched on: the stress check runs as always (its verdict is the
    first of the two returned), and its first trial is recorded until its `events`th event and
    judged by TLC against the design (a prefix of a behaviour is a behaviour)."""
    if not variant.java or not variant.handoff.trace:
        raise LabError(f"{variant.name} has no Java handoff with a trace spec",
                       f"traceable: {', '.join(v.name for v in traceable())}")
    with tempfile.TemporaryDirectory(prefix="trace-stress-") as tmp:
        out, log_file = Path(tmp) / "stress.json", Path(tmp) / "stress-trial.csv"
        seconds = max(javacheck.STRESS_SECONDS["ci"], variant.handoff.stress_seconds)
        proc = toolchain.run([*javacheck.checker_command("stress", variant.java, variant.profile, out, seconds),
                              "--trace", str(log_file), str(events)],
                             f"stress on {variant.name}, tracing its first trial", "run `./lab check java NAME` alone",
                             timeout=300, check=False)
        if proc.returncode != 0 or not out.exists() or not log_file.exists():
            raise LabError(f"stress with tracing on {variant.name} failed (exit {proc.returncode}):\n"
                           + "\n".join(proc.stderr.strip().splitlines()[-8:]), "run `./lab check java NAME` alone")
        stress = json.loads(out.read_text())
        stats, log = stress.get("stats", {}), read_log(log_file)
    what = (f"the first trial ({stats['traced_acceptors']} acceptor(s), size {stats['traced_size']}), "
            + ("all of it" if stats.get("traced_whole_trial") == 1 else "its beginning"))
    return stress, judge_one(log, variant, int(stats["traced_size"]), what)


def report_stress(name: str, events: int = STRESS_EVENTS, show_traces: bool = True) -> bool:
    """`./lab check trace NAME --stress`: both verdicts, each against the catalog's claim where it makes
    one; True when neither differs."""
    v = catalog_mod.load().variant(name)
    with progress() as bar:
        bar.add_task(f"stress on {name}, its first trial traced ({events:,} events at most), then TLC", total=None)
        stress, outcome = check_stress(v, events)
    agree = True
    for checker, verdict, detail in (("stress", stress["verdict"], stress.get("detail", "")),
                                     ("trace", outcome.verdict, outcome.detail)):
        claim = v.expected(checker)
        agree &= claim is None or verdict == claim
        said = ("" if claim is None else f" — the catalog says {claim}" if verdict != claim else "")
        (bad if said else ok)(f"{name} {checker}: {verdict} ({detail}){said}"
                              + (f" (not claimed: {v.why[checker]})" if claim is None and checker in v.why else ""))
    if outcome.swimlane:
        OUT.mkdir(parents=True, exist_ok=True)
        outcome.swimlane.save(OUT / f"{name}.stress.trace")
        if show_traces:
            outcome.swimlane.show()
    return agree


def check_log(events: Path, variant: catalog_mod.Variant, capacity: int, what: str) -> TraceOutcome:
    """A log recorded elsewhere (a server run with --trace), judged against its handoff's design."""
    if not variant.handoff.trace:
        raise LabError(f"{variant.handoff.name} has no trace spec", "the catalog's [handoff] names one as trace = ...")
    try:
        log = read_log(events)
    except (OSError, ValueError) as e:
        raise LabError(f"{events} is no recorded run: {e}", "record one with `./lab serve DESIGN --trace`")
    return judge_one(log, variant, capacity, what)


def size_note(size: int, sized_by: str) -> str:
    """What a run's size was, as the check profile's `sized_by` counts it, for the note under its swimlane and
    the grader's feedback: " (capacity 2)", " (3 workers)", or nothing for an unbounded design."""
    return {"slots": f" (capacity {size})", "workers": f" ({size} workers)"}.get(sized_by, "")


def judge_one(log: list[dict], variant: catalog_mod.Variant, capacity: int, what: str) -> TraceOutcome:
    """One long recorded run (a server's, a stress trial's), judged against its handoff's design."""
    if not any(e["op"] == "put" for e in log):
        return TraceOutcome("pass", 1, f"{what}: nothing was handed over, so there is nothing to validate")
    with tempfile.TemporaryDirectory(prefix="trace-") as tmp:
        accepted, furthest = judge(variant.handoff.trace, log, capacity, Path(tmp) / "tlc")
    if accepted:
        return TraceOutcome("pass", 1, f"{what}: {len(log)} events, a behaviour of {variant.handoff.spec}")
    return TraceOutcome(f"violation:{PROPERTY}", 1, f"{what} is no behaviour of {variant.handoff.spec}: event "
                        f"{furthest} of {len(log)} cannot happen there ({rule(variant.handoff)})",
                        log_swimlane(variant.name, log, furthest, size_note(capacity, variant.profile.sized_by),
                                 variant.handoff.trace_steps))

