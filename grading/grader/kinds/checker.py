"""`checker`: the kit's checkers (Lincheck, the stress watchdog) on the submitted class, each in
its own JVM in the jail, its verdict read back only if it carries this grading's nonce."""
from __future__ import annotations

import dataclasses
import json
import os
import re
import secrets
import time
from pathlib import Path

from grader import budgets, feedback, submission
from grader.context import Context
from grader.jail import Jail, MalformedReport, Run, ended_early, read_report
from grader.results import TestResult
from grader.rubric import Rubric, TestSpec
from handofflab.ground import catalog, paths
from handofflab.java import javabuild, javacheck, tracecheck

KIND = "checker"
NEEDS: tuple[str, ...] = ()
# Trace validation records at least this many runs, taking the design's stress sizes in turn: a slip
# that shows in most runs but not all (a pht that spills when full: 39 of 40 runs, measured) must
# not pass by luck; three runs leave about one grading in 60 000 to it, if runs are independent.
RECORDED_RUNS = 3


def score(ctx: Context) -> None:
    for spec, result in ctx.tests(KIND):
        _run(spec, ctx.rubric, ctx.classes, ctx.tmp, result, ctx.jail)


def _run(spec: TestSpec, rubric: Rubric, classes: Path, tmp: Path, result: TestResult, jail: Jail) -> None:
    """A rubric's checker test: `checker` (one, or a list run in turn: the test passes only if
    every one passes, so a bug that one of them finds every run is a deterministic mark even
    when another finds it only by luck), `like` (the catalogued variant whose check profile
    sizes and drives the class) and optionally `seconds` (the stress run's length)."""
    cls = rubric.cls
    passed = []
    for checker in spec.checkers:
        verdict, problem = (_trace if checker == "trace" else _verdict)(checker, spec, cls, classes, tmp, jail)
        if problem:
            result.output, result.pending = problem, bool(verdict.get("pending"))
            return
        starts = _own_threads(tmp) if verdict["verdict"] == "error" and NONDETERMINISM in verdict["detail"] else []
        if starts:  # Lincheck's replay went another way beside threads the class started: the class's doing
            result.output = (
                f"Failed: Lincheck could not replay your class: its replay of a schedule went another way. Lincheck "
                f"schedules the threads that call your {cls.rpartition('.')[2]}, and no other; your class starts "
                f"threads of its own ({'; '.join(starts[:3])}), whose steps it cannot control or repeat. A handoff "
                "runs on its callers' threads: the acceptor's put and the workers' takes.")
            return
        if verdict["verdict"] == "error":  # the checker's own failure ("error:Initializer" is the class's)
            result.pending = True
            result.output = (f"Not graded: the {checker} check failed itself, with no verdict on your class: "
                             f"{verdict['detail']}. Your instructor will regrade, and report it if it happens again.")
            return
        if verdict["verdict"] != "pass":
            result.output = feedback.explain(verdict, rubric, catalog.load().variant(spec.like).class_kind) \
                + (UNTIMED_NOTE if verdict.get("untimed") else "")
            lane = verdict.get("lane") or javacheck.verdict_swimlane(verdict)
            if lane and lane.steps:  # a class that never loaded has no schedule to draw
                lane.title = f"your {cls.rpartition('.')[2]} under {checker}"
                result.swimlane_md = lane.markdown()
            return
        passed.append(f"{checker}: {verdict['detail'] or 'no interleaving breaks exactly-once'}")
    result.score = result.max_score
    result.output = "Passed: " + "; ".join(passed) + "."


def _trace(checker: str, spec: TestSpec, cls: str, classes: Path, tmp: Path, jail: Jail) -> tuple[dict, str]:
    """Trace validation: one run recorded (in the jail) at each of the design's stress sizes, each judged by
    TLC (outside it) against the design's trace spec; the verdict of the first run that is no behaviour of
    the design, else a pass."""
    like = catalog.load().variant(spec.like)
    if not like.handoff.trace:
        raise ValueError(f"the rubric checks {spec.like} by trace, but {like.handoff.name} has no trace spec")
    sizes = like.profile.stress_sizes or (like.profile.size,)
    runs = max(RECORDED_RUNS, len(sizes))
    for i in range(runs):
        size = sizes[i % len(sizes)]
        profile = dataclasses.replace(like.profile, size=size)
        verdict, problem = _verdict("trace", spec, cls, classes, tmp, jail, profile)
        if problem:
            return verdict, problem
        try:
            log = tracecheck.read_log(tmp / "trace.json.csv")
        except (OSError, ValueError) as e:
            return {}, (f"Not graded: the recorded run is malformed ({e}). The recorder writes it; please tell "
                        "your instructor.")
        sized = tracecheck.size_note(size, like.profile.sized_by)
        if tracecheck.empty_hang(verdict["verdict"] in ("deadlock", "livelock"), log):
            return {**verdict, "detail": (
                f"the recorded run{sized} stopped before any take returned ({len(log)} calls began, "
                "none handed a connection over): there is nothing to validate against the design")}, ""
        accepted, furthest = tracecheck.judge(like.handoff.trace, log, size, tmp / f"trace-tlc-{i}")
        if not accepted:
            lane = tracecheck.log_swimlane(f"your {cls.rpartition('.')[2]}", log, furthest, sized)
            return {"verdict": f"violation:{tracecheck.PROPERTY}", "lane": lane, "design": like.handoff.title.lower(),
                    "rule": tracecheck.rule(like.handoff),
                    "detail": f"a run{sized}, event {furthest} of {len(log)}"}, ""
        # a run that hung (every thread waiting) or spun after handing over what the design allows passes here:
        # hangs are the stress test's to name, and one that shows only by luck must not move this mark
    return {"verdict": "pass", "detail": f"{runs} recorded runs, each a behaviour of the design"}, ""


def _verdict(checker: str, spec: TestSpec, cls: str, classes: Path, tmp: Path, jail: Jail,
             profile: catalog.CheckProfile | None = None) -> tuple[dict, str]:
    """(the verdict, "") of one checker on the submitted class, or ({}, why there is none)."""
    out = tmp / f"{checker}.json"
    seconds = float(spec.seconds or budgets.STRESS_SECONDS)
    untimed = checker == "lincheck" and _timed_waits(tmp)
    if untimed:
        classes, problem = _untimed(classes, tmp, jail)
        if problem:
            return {}, problem
    # The checker names a hang or an endless loop itself (its watchdog, Lincheck's own limits, a
    # 10 s limit on loading the class); running past the budget without a verdict, or a stress run
    # with no finished trial ("incomplete"), means the machine was too slow to finish. Once more
    # with twice the budget, then: not graded, regrade.
    like = catalog.load().variant(spec.like)
    for attempt, budget in enumerate((budgets.TEST_SECONDS, 2 * budgets.TEST_SECONDS)):
        run, verdict, malformed = _check_once(checker, cls, like, profile, out, seconds * (1 + attempt), budget, jail,
                                              str(classes))
        if run.timed_out:
            continue
        if not out.exists():
            return {}, ended_early(f"the {checker} check", run)
        if malformed:
            return {}, (f"Not graded: the {checker} check's report is malformed ({malformed}). The checker writes it; "
                        "a submission that could change it is refused before it runs, so please tell your "
                        "instructor.")
        if verdict["verdict"] != "incomplete":
            return {**verdict, "untimed": untimed}, ""
    return _no_verdict(checker, cls, like, profile, seconds, run, verdict, tmp, jail)


def _no_verdict(checker: str, cls: str, like: catalog.Variant, profile: catalog.CheckProfile | None, seconds: float,
                run: Run, verdict: dict, tmp: Path, jail: Jail) -> tuple[dict, str]:
    """Twice no verdict (past the budget, or no finished trial): the submission's fault, or pending."""
    # Pending only when the machine is to blame: the kit's own class, checked the same way right after, in the
    # same jail and budget, tells a busy machine (it cannot finish either) from a submission that blocks the
    # check or is too slow for it (it finishes: the failure is the submission's, and a regrade would repeat it),
    # unless other work took cores while the submission ran (counted by the grader: the machine's CPU time less
    # the run's own, which a submission cannot raise from inside its jail) or its threads stood waiting for one.
    if not any(paths.JAVA.glob(f"*/src/main/java/**/{like.java_class}.java")):  # a student copy withholds it
        return {"pending": True}, (
            f"Not judged here: the {checker} check gave no verdict, twice (the second time with {2 * seconds:g} s). "
            f"Grading tells a busy machine from a class that blocks the check or is too slow for it by checking the "
            f"kit's {like.java_class} the same way, and this copy does not hold it (it answers a lab). Run again on a "
            "quieter machine; if it happens again, look for a lock your class never lets go, a sleep or a spin."
            f"\n\n```text\n{run.output[-3000:]}\n```")
    kit = _kit_finishes(checker, like, profile, seconds * 2, 2 * budgets.TEST_SECONDS, tmp, jail)
    if run.timed_out:
        if kit:
            return {}, (f"Your {cls.rpartition('.')[2]} kept the {checker} check from finishing: no verdict in "
                        f"{budgets.TEST_SECONDS} s, nor in {2 * budgets.TEST_SECONDS} s, while the kit's {like.java_class}, "
                        f"checked the same way right after, finished in {kit:.0f} s. Something in your class blocks the "
                        "checker (a lock it shares, such as System.out's, held for ever) or makes every call very slow."
                        f"\n\n```text\n{run.output[-3000:]}\n```")
        return {"pending": True}, (
            f"Not graded: the {checker} check ran past {budgets.TEST_SECONDS} s and then {2 * budgets.TEST_SECONDS} s without a "
            f"verdict, and so did the kit's own {like.java_class} checked the same way: the grading machine was too busy. "
            f"Your instructor will regrade.\n\n```text\n{run.output[-3000:]}\n```")
    others, cores = run.others_cores, os.cpu_count() or 1
    if kit and budgets.too_busy(others):  # its speed was not all its own: not judged here
        return {"pending": True}, (
            f"Not graded: the {checker} check finished no trial, twice (the second time with {2 * seconds:g} s): "
            f"{verdict['detail']}. While it ran, other work on the grading machine kept {others:.1f} of its {cores} "
            f"cores busy (your check itself used {run.cpu_s:.1f} s of CPU in {run.seconds:.1f} s), so its speed "
            "says nothing about your class. Your instructor will regrade.")
    if kit and not javacheck.starved(verdict.get("stats", {})):
        return {}, (f"Your {cls.rpartition('.')[2]} is too slow for the {checker} check: it finished no trial, twice "
                    f"(the second time with {2 * seconds:g} s): {verdict['detail']}. The kit's {like.java_class}, "
                    f"checked the same way right after, finished its trials in {kit:.0f} s. A handoff passes each "
                    "connection in microseconds: look for a sleep, a timed wait that always runs out, or a spin.")
    if kit:  # the kit's class finished, yet this one's threads were kept off the CPU by other work
        st = verdict.get("stats", {})
        return {"pending": True}, (
            f"Not graded: the {checker} check finished no trial, twice (the second time with {2 * seconds:g} s): "
            f"{verdict['detail']}. Your class needs the CPU (it handed over {st.get('handoffs', '?')} connections "
            f"with none twice), and its threads waited {st.get('trial_runqueue_s', 0):.1f} s for a core against "
            f"{st.get('trial_cpu_s', 0):.1f} s on one, while the whole check used {st.get('process_cpu_s', 0):.1f} s "
            f"of CPU in {st.get('wall_s', 0):.1f} s on {st.get('cores', '?')} cores: other work on the grading machine "
            "took them. Your instructor will regrade.")
    return {"pending": True}, (
        f"Not graded: the {checker} check finished no trial, twice (the second time with {2 * seconds:g} s): "
        f"{verdict['detail']}, and the kit's own {like.java_class} could not finish either: the grading machine was "
        "too busy. Your instructor will regrade.")


# Lincheck's model checker lets a timed wait return at any moment, so a correct `while (full) wait(100);` is a
# loop it can run for ever: it reported a hang that is not there (issue 47). Its copy of the class waits untimed.
UNTIMED_NOTE = ("\n\n(Your class waits with a timeout, `wait(ms)`. Lincheck checked it with plain `wait()`: in a "
                "correct monitor the timeout never has to wake anyone, because every change a thread waits for is "
                "followed by a notify. A hang here is a wake-up your code leaves to the timeout.)")


# Lincheck's own words when a replay of its schedule goes another way (handofflab.checks.LincheckCheck.judge)
NONDETERMINISM = "Non-determinism found"
# Calls that start a thread besides the caller's: what Lincheck cannot schedule
THREAD_STARTS = ("java/lang/Thread.start", "java/lang/Thread.startVirtualThread", "java/lang/Thread$Builder",
                 "java/util/concurrent/Executor", "java/util/concurrent/CompletableFuture.runAsync",
                 "java/util/concurrent/CompletableFuture.supplyAsync", "java/util/concurrent/ForkJoinPool",
                 "java/util/Timer.")


def _own_threads(tmp: Path) -> list[str]:
    """Where the submitted classes start threads of their own, as 'Class.method calls owner.name' (the API check's
    listing of the bytecode, which the submission cannot write)."""
    try:
        listing = submission.read_listing(tmp)
    except MalformedReport:
        return []
    return [f"{re.split(r'[/.]', c.name)[-1]}.{method} calls {called}" for c in listing
            for method, calls in c.calls.items() for called in calls if called.startswith(THREAD_STARTS)]


def _timed_waits(tmp: Path) -> bool:
    """Whether the submission's bytecode calls wait(ms) or wait(ms, ns) (the API check's listing)."""
    try:
        return any(c.timed_wait for c in submission.read_listing(tmp))
    except MalformedReport:
        return False


def _untimed(classes: Path, tmp: Path, jail: Jail) -> tuple[Path, str]:
    """A copy of the submitted classes whose timed waits are plain waits (handofflab.checks.UntimedWaits)."""
    copy = tmp / "classes-untimed"
    run = jail.run(["java", "-cp", javabuild.classpath("checks"), "handofflab.checks.UntimedWaits", str(classes),
                    str(copy)], timeout=budgets.COMPILE_SECONDS)
    if run.returncode != 0 or "untimed waits:" not in run.output:
        return classes, ("Not graded: your classes could not be prepared for Lincheck (their timed waits made "
                         f"plain waits):\n\n```text\n{run.output[-2000:]}\n```\nPlease tell your instructor.")
    return copy, ""


def _check_once(checker: str, cls: str, like: catalog.Variant, profile: catalog.CheckProfile | None, out: Path,
                seconds: float, budget: float, jail: Jail, classes: str | None = None) -> tuple:
    """One run of a checker on `cls` (the submission's, from `classes`, or the kit's own) in the jail: (the run,
    the verdict or None, why the report is malformed or ""). The nonce is read by the checker before the class
    loads: a report without it was not written by this checker."""
    out.unlink(missing_ok=True)
    cmd = javacheck.checker_command(checker, cls, profile or (None if like.class_kind else like.profile), out,
                                    seconds, classes or "", class_kind=like.class_kind)
    nonce = secrets.token_hex(16)
    run = jail.run([*cmd, "--nonce-stdin"], timeout=budget, stdin=nonce + "\n")
    if run.timed_out or not out.exists():
        return run, None, ""
    try:
        verdict = json.loads(read_report(out))
        if not isinstance(verdict, dict) or verdict.get("nonce") != nonce:
            raise MalformedReport("it does not carry the nonce this grading gave the checker")
        verdict["verdict"], verdict["detail"]  # noqa: B018 (the keys every verdict has)
    except (MalformedReport, ValueError, KeyError) as e:
        return run, None, str(e) or type(e).__name__
    return run, verdict, ""


def _kit_finishes(checker: str, like: catalog.Variant, profile: catalog.CheckProfile | None, seconds: float,
                  budget: float, tmp: Path, jail: Jail) -> float | None:
    """How long the kit's own class (the variant the submission is checked like) took to get a finished
    verdict under the same check, or None if it did not finish within the budget either."""
    start = time.monotonic()
    _, verdict, _ = _check_once(checker, like.java_class, like, profile, tmp / f"{checker}-kit.json", seconds, budget,
                                jail)
    return time.monotonic() - start if verdict and verdict["verdict"] not in ("incomplete", "error") else None
