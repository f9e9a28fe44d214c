"""`./lab check java`: Lincheck, the stress watchdog and (when asked) JPF and jcstress over
every Java handoff in the catalog; each verdict compared with the catalog and
each counterexample drawn as the same swimlanes as TLC's."""
from __future__ import annotations

import datetime
import functools
import json
import os
import re
import resource
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from handofflab.ground import catalog as catalog_mod, paths, toolchain
from handofflab.java import javabuild
from handofflab.ground.console import LabError, bad, console, ok, progress, skip
from handofflab.ground.swimlanes import Step, Swimlane

OUT = paths.RESULTS / "java"
STRESS_SECONDS = {"ci": 3.0, "full": 30.0}


@dataclass
class JavaOutcome:
    name: str
    checker: str
    expected: str
    got: str
    detail: str
    seconds: float
    stats: dict

    @property
    def matches(self) -> bool:
        return self.got == "skip" or self.got == self.expected


# JPF runs inside the checker's JVM and reaches into the JDK as jpf-core's own tests let it
# (without these, a program using java.util.Random fails under JPF); a heap for its state store
JPF_JVM = ["-Xmx3g", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
           "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
           "--add-opens", "java.base/java.util=ALL-UNNAMED"]


# Lincheck's runs are short (400 interleavings per scenario, about 5 s), too short for the C2 compiler's
# work to pay off: with the JVM's first compiler only, a run takes the same wall time and half the CPU
# (measured on 2 cores: EventStore 16.8 -> 6.5 CPU-s, MonitorBuffer 10.8 -> 5.8). Its search, and so its
# verdicts, do not depend on the compiler.
# -da: Lincheck's model checking runs monitors of its own, so Thread.holdsLock is false inside them, and the kit's
# asserts that a helper runs under its monitor (Ring, FastBuffer's and FastPermits' waiters' halves) would fail every
# correct buffer there; JPF (whose monitors are the program's) and the kit's JUnit tests run them.
LINCHECK_JVM = ["-XX:TieredStopAtLevel=1", "-da"]

# a JPF search stops itself at its budget of states (about 5 minutes here); the clock is only a backstop
JPF_TIMEOUT = 1800

# jcstress (java/jcstress, one shaded jar) runs a handoff's memory-model tests: its actors side by side on the real
# JIT and hardware, millions of samples, each outcome graded acceptable or forbidden. Its `quick` preset with the JVM's
# flags pinned (-jvmArgs: one configuration, crossed only with jcstress's compilation modes) took about 30 s a test on
# 2 quiet cores, tens of millions of samples; `--tier full` leaves jcstress its own crossing of JVM flags too. jcstress
# 0.16 exits 0 whatever its tests saw: handofflab.jcstress.Verdicts reads its result file and writes the verdict JSON.
JCSTRESS_JAR = paths.JAVA / "jcstress" / "target" / "jcstress.jar"
JCSTRESS_OPTIONS = {"ci": ["-m", "quick", "-jvmArgs", "-XX:+UseParallelGC"], "full": ["-m", "quick"]}
JCSTRESS_TIMEOUT = 3600


def jcstress_command(java_class: str, tests: str, out: Path, report: Path, options: list[str]) -> list[str]:
    """jcstress's tests matching `tests` on `java_class` (a FastBuffer or FastPht, or a twin of one), through the
    kit's reader of its results; jcstress's HTML report goes to `report` (run it there: its result file goes to the
    folder it runs in)."""
    javabuild.build()
    return ["java", "-cp", str(JCSTRESS_JAR), "handofflab.jcstress.Verdicts", java_class, tests, "--out", str(out),
            "--report", str(report), *options]


def checker_command(checker: str, java_class: str, profile: catalog_mod.CheckProfile | None, out: Path, seconds: float,
                    extra_classpath: str = "", class_kind: str | None = None) -> list[str]:
    """One checker on `java_class`, built and driven as `profile` says (a submitted class gets
    the profile of the variant it is checked like); a class that is not a handoff instead
    (`class_kind` is Variant.class_kind: 'collection', 'store', 'table', 'queue' or 'database') by the checkers
    catalog.CLASS_CHECKERS names for its kind, passed to Java (which keeps no copy of that rule)."""
    cp = javabuild.classpath("checks") + (f":{extra_classpath}" if extra_classpath else "")
    jvm = {"jpf": JPF_JVM, "lincheck": LINCHECK_JVM}.get(checker, [])
    how = ([f"--{class_kind}", "--checkers", ",".join(catalog_mod.CLASS_CHECKERS[class_kind])] if class_kind
           else ["--profile", profile.arg()])
    return ["java", *jvm, "-cp", cp, "handofflab.checks.Main", checker, java_class, *how,
            "--out", str(out), "--seconds", str(seconds)]


def run_checker(checker: str, name: str, seconds: float = 3.0, timeout: float = 300, tier: str = "ci") -> dict:
    """One checker on a catalogued variant's class, in its own JVM; returns the verdict JSON."""
    variant = catalog_mod.load().variant(name)
    java_class = variant.java_class
    out = OUT / f"{java_class}.{checker}.verdict.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    cwd = None
    if checker == "jcstress":
        cwd = OUT / f"{java_class}.jcstress"  # its report and its result file, a run's alone
        shutil.rmtree(cwd, ignore_errors=True)
        cwd.mkdir(parents=True)
        cmd = jcstress_command(java_class, variant.jcstress_selector, out, cwd, JCSTRESS_OPTIONS[tier])
        stopper, timeout = "jcstress's own time per test", JCSTRESS_TIMEOUT
    else:
        cmd = checker_command(checker, java_class, variant.profile if variant.java else None, out, seconds,
                              class_kind=variant.class_kind)
        stopper = "JPF's state budget" if checker == "jpf" else "the watchdog"
        timeout = max(timeout, JPF_TIMEOUT) if checker == "jpf" else timeout
    proc = toolchain.run(cmd, f"{checker} on {java_class}", f"{stopper} should have stopped it: run it alone with "
                         f"`./lab check java {name}` and report the thread dump", cwd=cwd, timeout=timeout,
                         check=False)
    if proc.returncode != 0 or not out.exists():
        tail = "\n".join(proc.stderr.strip().splitlines()[-10:])
        raise LabError(f"{checker} on {java_class} failed (exit {proc.returncode}):\n{tail}",
                       "rebuild with `./lab check java` after `mvn -f java/pom.xml clean`")
    said = out.read_text()
    if cwd:  # jcstress names its report by the path it was given: say it as every message says a path
        said = said.replace(str(cwd), paths.shown(cwd))
    return json.loads(said)


def record(name: str, checker: str = "jpf") -> Path:
    """A checker's counterexample for variant `name`, kept for the book: JPF's (CI has no JPF) or jcstress's (minutes
    a class, and its counts differ from run to run): book/recorded/VARIANT.CHECKER.json."""
    variant = catalog_mod.load().variant(name)
    if checker == "jcstress" and variant.expected("jcstress") is None:
        raise LabError(f"the catalog claims no jcstress verdict for {name}", "record a twin that jcstress catches")
    verdict = run_checker(checker, name, timeout=1200)
    lane = verdict_swimlane(verdict)
    if lane is None:
        raise LabError(f"{checker} gives {verdict['verdict']} on {name}: no counterexample to record ({verdict['detail']})",
                       f"record a variant {checker} catches (its catalog entry says {checker} = ...)")
    st = verdict["stats"]
    if checker == "jpf":
        how = ("JPF (jpf-core's java-17 branch, built by hand outside the kit)",
               f"{st['newStates']:,} new states, {st['visitedStates']:,} visited, depth {st['maxDepth']}",
               "CI has no JPF, so this copy is kept in `book/recorded/`; a test checks that every source line it cites "
               "still reads as shown, and, where JPF_HOME is set, that a fresh run draws the same steps.")
    else:
        how = (f"jcstress 0.16 (`java/jcstress`, {' '.join(JCSTRESS_OPTIONS['ci'])}) on {os.cpu_count()} cores",
               f"{int(st['samples']):,} samples",
               "Its counts differ from run to run, so this copy is kept in `book/recorded/`; a test checks that each "
               "lane is what its actor's `@Lane` says now, and the full tier that a fresh run draws the same steps.")
    lane.note += (f"\n\n*Recorded from a real run* of {how[0]} on {datetime.date.today()} with "
                  f"`./lab check java --record-{checker} {variant.name}`: {how[1]}, {float(st['seconds']):.1f} s. "
                  + how[2])
    out = paths.BOOK / "recorded" / f"{variant.name}.{checker}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(lane.to_json())
    return out


def notify_witness(runs: int = 200) -> tuple[str, dict]:
    """NotifyWitness on the JVM `runs` times, then under JPF: two waiters, one notify() each.
    The JVM always finishes; jpf-core's notify() wakes nobody when two threads wait."""
    cp = javabuild.classpath("checks")
    jvm = toolchain.run(["java", "-cp", cp, "handofflab.checks.NotifyWitness", str(runs)], "NotifyWitness on the JVM",
                        "run it by hand: java -cp ... handofflab.checks.NotifyWitness", timeout=600)
    proc = toolchain.run(["java", *JPF_JVM, "-cp", cp, "handofflab.checks.JpfCheck", "handofflab.checks.NotifyWitness"],
                         "NotifyWitness under JPF", "set JPF_HOME to a jpf-core build (./lab doctor)", timeout=600)
    return jvm.stdout.strip().splitlines()[-1], json.loads(proc.stdout.strip().splitlines()[-1])


def verdict_swimlane(verdict: dict) -> Swimlane | None:
    """A Java checker's counterexample as swimlanes."""
    v = verdict["verdict"]
    if v in ("pass", "skip"):
        return None
    title = f"{verdict['subject']} under {verdict['checker']}"
    if verdict["checker"] == "lincheck":
        return lincheck_swimlane(verdict["trace"], title, v)
    steps = [Step(t, a, [s] if s else []) for t, a, s in verdict["steps"]]
    threads = list(dict.fromkeys([*verdict["ending"], *(s.thread for s in steps)]))
    note = verdict.get("detail", "")
    if verdict["checker"] == "jcstress":  # its steps ran side by side, not in turn: what it counted is the evidence
        note = ("The actors ran at once, each on its own core; a lane is what one actor did and saw in the forbidden "
                "outcome, and the rows' order is only the test's order of its actors. " + note
                + "\n\nEvery outcome jcstress observed:\n\n" + verdict.get("trace", ""))
    return Swimlane(title, verdict["checker"], v, threads, steps, verdict["ending"], note)


def lincheck_swimlane(trace: str, title: str, verdict: str) -> Swimlane:
    """Lincheck prints the failing interleaving as a table with a column per thread and one event per row: each row
    becomes a step in its thread's lane. It prints it twice, short and detailed; the detailed table says in which
    method each event ran (`at Class.method(File:line)`), and a row of the short one that ran inside the JDK or a
    library (a ReentrantLock's queue, a TreeMap's entries) is folded into the call the class made: issue 85 saw seven
    rows of AbstractQueuedSynchronizer around a student's own steps."""
    section = trace.split("The following interleaving leads to the error:", 1)[-1]
    short, _, detailed = section.partition("Detailed trace:")
    rows = _table(short)
    if not rows:
        return Swimlane(title, "lincheck", verdict, [], [], note=trace.strip()[:2000])
    threads = [c.strip() for c in rows[0].strip("|").split("|")]
    frames = _frames(_table(detailed), len(threads))  # per lane: (event, the file it ran in) in order
    ours = _own_sources()
    seen = [0] * len(threads)
    steps: list[Step] = []
    last: dict[str, Step] = {}
    for row in rows[1:]:
        for i, (lane, cell) in enumerate(zip(threads, row.strip()[1:-1].split("|"))):
            text = cell.strip()
            if not text:
                continue
            event, _, where = text.partition(" at ")
            # where it ran: the next row of this lane's detailed table with the same event
            at = next((j for j in range(seen[i], len(frames[i])) if frames[i][j][0] == event), None)
            if at is not None:
                seen[i] = at + 1
                if frames[i][at][1] and frames[i][at][1] not in ours:
                    continue  # ran inside the JDK or a library: part of the call that led there
            if text.startswith("switch (reason") or text.startswith("<iteration") or "➜" in text:
                continue  # reads and scheduler notes: the writes and calls tell the story
            if re.fullmatch(r"[\w.#<>\[\]]+ = .+", event) and lane in last:
                if steps[-1] is last[lane]:
                    last[lane].changes.append(event)  # a field write: shared state after the thread's step
                    continue
                # written after another thread ran (the thread was switched out and resumed): a row of its own,
                # where it happened, never the thread's earlier row (which drew LateWaiterPht's waiters++ before
                # the puts it followed)
                step = Step(lane, "resumes", [event])
                steps.append(step)
                last[lane] = step
                continue
            source = re.search(r"\(([\w$]+\.java:\d+)\)", where)
            step = Step(lane, event + (f"  ({source.group(1)})" if source else ""))
            steps.append(step)
            last[lane] = step
    results = trace.split("The following interleaving", 1)[0].strip()
    return Swimlane(title, "lincheck", verdict, threads, steps, note="Lincheck's results:\n\n```text\n" + results + "\n```")


def _frames(rows: list[str], lanes: int) -> list[list[tuple[str, str]]]:
    """Lincheck's detailed table, per lane: each event and the source file it ran in ("" where it says none)."""
    out: list[list[tuple[str, str]]] = [[] for _ in range(lanes)]
    for row in rows[1:]:
        for i, cell in enumerate(row.strip()[1:-1].split("|")[:lanes]):
            text = cell.strip()
            if text:
                event, _, where = text.partition(" at ")
                frame = re.search(r"\(([\w$]+\.java):\d+\)", where)
                out[i].append((re.sub(r" \[recursive call x \d+ times\]$", "", event), frame.group(1) if frame else ""))
    return out


def _table(text: str) -> list[str]:
    """The rows of the first table in `text` (its header first), without its rules."""
    rows = []
    for line in text.strip().splitlines():
        if not line.startswith("|"):
            break
        if not line.startswith("| ---"):
            rows.append(line)
    return rows


@functools.cache
def _own_sources() -> frozenset[str]:
    """The file names of the kit's Java and the labs' (a submission's file is its starter's): a Lincheck event that
    ran in any other file ran inside the JDK or a library."""
    return frozenset(p.name for root in (paths.JAVA, paths.LABS) for p in root.rglob("*.java"))


def check(name: str | None = None, tier: str = "ci", jpf: bool = False, show_traces: bool = True,
          cat=None, handoff: str | None = None, jcstress: bool = False, variant_only: bool = False) -> list[JavaOutcome]:
    """`name`: one variant, or a handoff (design) and all its variants (`variant_only`: the variant of that name
    alone); `handoff`: the design, by keyword."""
    cat = cat or catalog_mod.load()
    if name in cat.handoffs and not variant_only:
        name, handoff = None, name
    chosen = [v for v in cat.select(name, tier, handoff=handoff) if v.java_class]
    if name and not chosen:
        raise LabError(f"{name} has no Java class in the catalog", "pick a variant with `java = ...`")
    checkers = [*catalog_mod.JAVA_CHECKERS] + (["jpf"] if jpf else []) + (["jcstress"] if jcstress else [])
    for v in chosen:
        for checker in _checkers(v, checkers):
            # A checker may be left unclaimed only with a reason (JPF's budget, a catch that needs luck).
            if v.expected(checker) is None and checker != "jpf" and checker not in v.why:
                raise LabError(f"specs/catalog.toml: {v.name} has no expected result for {checker}",
                               f"add `{checker} = \"...\"` under its [variant.expect], or say why it is not "
                               "claimed under [variant.why]")
    outcomes = []
    with progress() as bar:
        task = bar.add_task("Java checks", total=sum(len(_checkers(v, checkers)) for v in chosen))
        for v in chosen:
            for checker in _checkers(v, checkers):
                if v.expected(checker) is None:
                    skip(f"{checker} on {v.java_class}: the catalog claims no verdict: "
                         + v.why.get(checker, "its comment in specs/catalog.toml says why"))
                    bar.advance(task)
                    continue
                bar.update(task, description=f"{checker} {v.java_class}")
                outcomes.append(check_pair(v, checker, tier, show_traces))
                bar.advance(task)
    _report(outcomes, cat)
    if variant_only:  # `check variant` runs every checker the variant claims: no other to suggest
        return outcomes
    if not jpf:
        skip("JPF not run (add --jpf). " + ("JPF_HOME is set." if os.environ.get("JPF_HOME") else
                                            "JPF_HOME is not set: the JPF backend needs a jpf-core build you make yourself."))
    if not jcstress and any(v.handoff.jcstress for v in chosen):
        skip("jcstress not run (add --jcstress: a few minutes a class): the fast handoffs' memory-model claims, which "
             "no other checker sees")
    return outcomes


def _checkers(v, checkers: list[str]) -> list[str]:
    """The checkers that apply to a variant's class (a class that is not a handoff takes its own)."""
    if v.class_kind:
        return [c for c in checkers if c in catalog_mod.CLASS_CHECKERS[v.class_kind]]
    return [c for c in checkers if c not in catalog_mod.PROBE_CHECKERS and (c != "jcstress" or v.handoff.jcstress)]


def claimed_pairs(tier: str = "ci", cat=None) -> list[tuple[catalog_mod.Variant, str]]:
    """Every (variant, checker) whose verdict the catalog claims: what the sweep runs, one by one."""
    cat = cat or catalog_mod.load()
    return [(v, checker) for v in cat.select(None, tier) if v.java_class
            for checker in _checkers(v, list(catalog_mod.JAVA_CHECKERS)) if v.expected(checker) is not None]


def starved(st: dict) -> bool:
    """Whether a stress run (its verdict's stats) that finished no trial was starved by other work on the machine,
    not slow by itself: its trial threads stood in the run queue, waiting for a CPU (Linux's schedstat), longer
    than the whole run lasted (more than one of them at every moment, on average) and longer than they ran, while
    the checker's JVM as a whole used under three quarters of the machine's cores. A class that sleeps is runnable
    only as it wakes, at most one thread at a time, so it never qualifies (a put that sleeps 1 ms, in a CI run:
    0.4 s waiting in a 1.5 s run); one that eats the cores with threads of its own used them itself."""
    ran, waited = st.get("trial_cpu_s", 0), st.get("trial_runqueue_s", 0)
    cpu, wall, cores = st.get("process_cpu_s", 0), st.get("wall_s", 0), st.get("cores", 0)
    return bool(ran and wall and cores) and waited > max(ran, wall) and cpu < 0.75 * cores * wall


def _measured(run) -> dict:
    """`run()`'s verdict, its stats given others_cores: how many cores other work kept busy while it ran (the
    machine's busy CPU seconds less the checker's own, over the wall time)."""
    before, started, children = toolchain.machine_cpu_seconds(), time.monotonic(), _children_cpu()
    verdict = run()
    wall, st, after = time.monotonic() - started, verdict["stats"], toolchain.machine_cpu_seconds()
    # the checker's JVM counts its own CPU; jcstress's does not, but it waits for its forks, so the run's share of
    # this process's finished children is its whole
    own = st["process_cpu_s"] if "process_cpu_s" in st else _children_cpu() - children
    if after and wall:
        st["others_cores"] = max(0.0, after - before - own) / wall
    return verdict


def _within_limit(checker: str, name: str, seconds: float, tier: str) -> dict:
    """run_checker's verdict, or "incomplete" if the checker's JVM ran past its time limit: Lincheck on FastBuffer
    took 164 s at a load of 16-18 on 2 cores and once ran past 300 s beside two busy loops and a test run. Whether
    that was the machine (others_cores, which _measured adds) is the caller's to judge, as for a stress run's."""
    try:
        return run_checker(checker, name, seconds, tier=tier)
    except toolchain.TimedOut as e:
        return {"verdict": "incomplete", "detail": f"no verdict: {e.problem}", "stats": {}}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check_pair(v, checker: str, tier: str = "ci", show_traces: bool = False) -> JavaOutcome:
    """One checker on one variant's class, its swimlane saved beside the verdict."""
    # One checker at a time: a stress run needs every core to itself, and two Lincheck
    # JVMs side by side were no faster on 2 cores (each already keeps both busy).
    seconds = max(STRESS_SECONDS[tier], v.handoff.stress_seconds)
    verdict = _measured(lambda: _within_limit(checker, v.name, seconds, tier))
    if verdict["verdict"] == "incomplete":
        # No trial finished: too busy a machine. Once more with twice the time, as the grader does; then no verdict,
        # said as such, with how many cores other work kept busy meanwhile (stats' others_cores), which a caller
        # holds to the grader's bar before it calls the run anything but unjudged.
        verdict = _measured(lambda: _within_limit(checker, v.name, 2 * seconds, tier))
    elif verdict["verdict"] == "error:TIMEOUT_ERROR":
        # jcstress's forked JVM gave up waiting for a test's actors (30 s past its time): seen only beside other work
        # (FastBuffer at a load of 13 to 57 on 2 cores), where actors that spin for each other wait for a CPU. Once
        # more; a second time-out is no verdict, with others_cores measured, held to the same bar as a stress run's.
        verdict = _measured(lambda: _within_limit(checker, v.name, seconds, tier))
        if verdict["verdict"] == "error:TIMEOUT_ERROR":
            verdict["verdict"] = "incomplete"
            verdict["detail"] = "no verdict: twice, " + verdict["detail"]
    outcome = JavaOutcome(v.name, checker, v.expected(checker), verdict["verdict"], verdict["detail"],
                          float(verdict["stats"].get("seconds", 0)), verdict["stats"])
    lane = verdict_swimlane(verdict)
    if lane:
        lane.save(OUT / f"{v.name}.{checker}")
        if show_traces:
            lane.show()
    return outcome


def _report(outcomes: list[JavaOutcome], cat) -> None:
    if not outcomes:
        skip("no checker ran, so nothing was confirmed: the catalog claims these classes only for checkers not run "
             "here (JPF needs --jpf and JPF_HOME)")
        return
    table = Table(title="Java checkers against specs/catalog.toml")
    for col in ("class", "checker", "expected", "got", "", "why / detail"):
        table.add_column(col, overflow="fold")
    for o in outcomes:
        if o.got == "skip":
            mark = "[yellow]SKIP"
        elif o.got.startswith("error:"):
            mark = "[red]NO VERDICT (error)"
        elif o.got == "incomplete":
            mark = "[yellow]NO VERDICT"
        else:
            mark = "[green]as catalogued" if o.matches else "[red]DIFFERS"
        why = cat.variants[o.name].why.get(o.checker, "") if o.got == "pass" and o.expected == "pass" else ""
        table.add_row(o.name, o.checker, o.expected, o.got, mark, why or o.detail[:140])
    console.print(table)
    wrong = [o for o in outcomes if not o.matches]
    skipped = [o for o in outcomes if o.got == "skip"]
    for o in skipped:
        skip(f"{o.checker} on {o.name}: {o.detail}")
    undecided = [o for o in wrong if o.got == "incomplete"]
    for o in undecided:
        bad(f"{o.checker} on {o.name} gave no verdict, so the catalog's claim ({o.expected}) is not confirmed: {o.detail}")
    if wrong:
        bad(f"{len(wrong)} result(s) differ from the catalog: " + ", ".join(f"{o.checker} on {o.name}" for o in wrong))
    elif len(outcomes) == len(skipped):
        skip("no checker ran, so nothing was confirmed: every one skipped (see above)")
    else:
        ok(f"{len(outcomes) - len(skipped)} checker results as catalogued" + (f", {len(skipped)} skipped" if skipped else ""))


def replay(file: Path) -> None:
    """Show a saved counterexample again (swimlane JSON written by a check)."""
    if not file.exists():
        raise LabError(f"no saved counterexample at {file}", f"saved ones are in {paths.shown(OUT)}/")
    try:
        Swimlane.from_json(file.read_text()).show()
    except (ValueError, KeyError, TypeError) as e:
        raise LabError(f"{file} is not a saved swimlane: {e}", "pass a *.json file written by `./lab check`")
