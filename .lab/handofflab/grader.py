"""`./lab grade LAB SUBMISSION`: grades one submission (a folder or a zip) by
the lab's rubric (labs/LAB/rubric.toml) and writes Gradescope's results.json
and a readable report.md, with failing schedules drawn as swimlanes.

A rubric's tests are of four kinds:
- junit: the lab's public JUnit tests on the submitted class;
- checker: one of the kit's checkers (Lincheck, the stress watchdog) on the submitted class;
- tlc: TLC on a submitted TLA+ spec with one catalogued configuration, scored by whether
  the verdict is the catalog's (a buggy variant caught, a correct one passed);
- mutants: the submitted JUnit tests run against one of the kit's handoffs, scored by
  whether they fail a buggy one (a mutant killed) or pass a correct one (no false alarm).
Every run of submitted code goes through `sandbox.run`."""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from handofflab import catalog, javabuild, javacheck, paths, sandbox, tlc, toolchain
from handofflab.console import LabError

COMPILE_SECONDS = 60
SERVER_SECONDS = 60             # the server lab's runs: 3 x 2000 requests take about 5 s when the handoff works
TLC_SECONDS = 60                # one TLC run of a submitted spec; the kit's own models need under 5
TEST_SECONDS = 45               # one JVM of tests or of a checker; a correct submission needs about 15
JUNIT_TIMEOUT = "5 s"           # per public test, enforced from another thread: a spin ignores interrupts
STRESS_SECONDS = 3.0
# Every JVM that runs submitted code: a heap the machine can afford, no perf-data file in the
# (read-only) /tmp, and temporary files in the submission's own folder.
JVM_OPTIONS = "-Xmx1g -XX:-UsePerfData -Djava.io.tmpdir={work}/jvm-tmp"


class _Jail:
    """Where one grading's sandboxed runs may write (`work`), and what they must not read."""

    def __init__(self, work: Path, hide: tuple[Path, ...]):
        self.work, self.hide = work, hide
        (work / "jvm-tmp").mkdir(exist_ok=True)
        self.env = {**os.environ, "JAVA_TOOL_OPTIONS": JVM_OPTIONS.format(work=work)}

    def run(self, cmd: list[str], timeout: float) -> sandbox.Run:
        sandbox.prepare(self.work)
        r = sandbox.run(cmd, timeout, env=self.env, work=self.work, hide=self.hide)
        r.output = "\n".join(l for l in r.output.splitlines() if not l.startswith("Picked up JAVA_TOOL_OPTIONS"))
        return r


@dataclass
class TestResult:
    name: str
    max_score: float
    score: float = 0.0
    output: str = ""
    swimlane_md: str = ""

    def gradescope(self) -> dict:
        return {"name": self.name, "score": self.score, "max_score": self.max_score,
                "status": "passed" if self.score == self.max_score else "failed",
                "output": self.output + (("\n\n" + self.swimlane_md) if self.swimlane_md else ""),
                "output_format": "md", "visibility": "visible"}


@dataclass
class Grade:
    lab: str
    submission: str
    tests: list[TestResult] = field(default_factory=list)
    problem: str = ""       # why nothing could be graded (no file, no compile), if so
    seconds: float = 0.0

    @property
    def score(self) -> float:
        return sum(t.score for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t.max_score for t in self.tests)

    def results_json(self) -> dict:
        return {"score": self.score, "max_score": self.max_score, "execution_time": round(self.seconds, 1),
                "output": self.problem or f"{self.score:g} / {self.max_score:g} points",
                "output_format": "md", "tests": [t.gradescope() for t in self.tests]}

    def report(self) -> str:
        lines = [f"# {self.lab}: {self.score:g} / {self.max_score:g} points", "",
                 f"Submission: `{self.submission}`", ""]
        if self.problem:
            lines += ["## Could not grade", "", self.problem, ""]
        for t in self.tests:
            mark = "✔" if t.score == t.max_score else "✘"
            lines += [f"## {mark} {t.name} — {t.score:g} / {t.max_score:g}", "", t.output, ""]
            if t.swimlane_md:
                lines += [t.swimlane_md, ""]
        return "\n".join(lines)


def load_rubric(lab: str) -> dict:
    path = paths.LABS / lab / "rubric.toml"
    if not path.exists():
        known = sorted(p.parent.name for p in paths.LABS.glob("*/rubric.toml"))
        raise LabError(f"no lab called '{lab}'", f"labs with a rubric: {', '.join(known)}")
    return tomllib.loads(path.read_text())


# -- the submission -------------------------------------------------------------

def unpack(submission: Path, into: Path) -> list[str]:
    """Copy a folder, or extract a zip, into `into` — never writing outside it
    and never following a link out of it.  Returns what was refused."""
    refused = []
    if submission.is_dir():
        for src in submission.rglob("*"):
            rel = src.relative_to(submission)
            if src.is_symlink():
                refused.append(f"{rel} (a symbolic link)")
            elif src.is_file():
                (into / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, into / rel)
    elif zipfile.is_zipfile(submission):
        with zipfile.ZipFile(submission) as z:
            for info in z.infolist():
                target = (into / info.filename).resolve()
                if not target.is_relative_to(into.resolve()) or info.filename.startswith("/"):
                    refused.append(f"{info.filename} (it points outside the submission)")
                elif (info.external_attr >> 16) & 0o170000 == 0o120000:
                    refused.append(f"{info.filename} (a symbolic link)")
                elif not info.is_dir():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with z.open(info) as src, open(target, "wb") as dst:
                        shutil.copyfileobj(src, dst)
    else:
        raise LabError(f"{submission} is neither a folder nor a zip file", "pass the submission's folder or .zip")
    return refused


def _find_source(work: Path, rubric: dict) -> tuple[Path | None, str]:
    found = sorted(work.rglob(rubric["file"]))
    if not found:
        return None, (f"The submission has no `{rubric['file']}`. Submit that one file (or a folder or zip "
                      f"containing it), as in labs/{rubric['lab']}/starter/.")
    if len(found) > 1:
        return None, f"The submission has {len(found)} files called `{rubric['file']}`; submit exactly one."
    text = _code_only(found[0].read_text(errors="replace"))
    for pattern in rubric.get("forbid", []):
        used = re.search(pattern, text)
        if used:
            return None, (f"`{rubric['file']}` uses `{used.group(0)}`, which lab {rubric['lab']} does not allow "
                          f"(see labs/{rubric['lab']}/README.md): build it yourself.")
    if not rubric["file"].endswith(".java"):
        return found[0], ""
    package = rubric["class"].rpartition(".")[0]
    if not re.search(rf"^\s*package\s+{re.escape(package)}\s*;", found[0].read_text(errors="replace"), re.M):
        return None, (f"`{rubric['file']}` must start with `package {package};` (as the starter does): "
                      "the grader and the tests look for the class there.")
    return found[0], ""


def _code_only(source: str) -> str:
    """Java or TLA+ without its comments and string literals: what a forbid pattern must match."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|\(\*.*?\*\)|\\\*[^\n]*|"(?:\\.|[^"\\])*"', " ", source, flags=re.S)


# -- grading ----------------------------------------------------------------------

def grade(lab: str, submission: Path, out_dir: Path | None = None, hide: tuple[Path, ...] = (),
          rubric: dict | None = None) -> Grade:
    """Grades one submission. Its code sees neither the hidden tests (grading/), nor other
    grading results, nor where it came from, nor anything in `hide` (grade-batch: the other
    submissions). `rubric`: instead of the lab's own (the hostile suite grades with a lighter one)."""
    rubric = rubric or load_rubric(lab)
    submission = submission.resolve()
    if not submission.exists():
        raise LabError(f"submission not found: {submission}", "pass a folder or a .zip")
    out_dir = out_dir or paths.RESULTS / "grading" / lab / submission.stem
    g = Grade(lab, str(submission))
    g.tests = [TestResult(t["name"], float(t["points"])) for t in rubric["test"]]
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"grade-{lab}-") as tmp:
        work = Path(tmp) / "submission"
        work.mkdir()
        refused = unpack(submission, work)
        source, problem = _find_source(work, rubric)
        jail = _Jail(Path(tmp), (paths.ROOT / "grading", paths.RESULTS, submission if submission.is_dir()
                                 else submission.parent, *hide))
        if source and not problem:
            problem = (_translate(source, jail) if source.suffix == ".tla"
                       else _compile(source, Path(tmp) / "classes", jail, rubric))
        if problem:
            g.problem = problem + (f"\n\nIgnored: {', '.join(refused)}" if refused else "")
            for t in g.tests:
                t.output = "Not run: the submission could not be built (see above)."
        else:
            _run_tests(rubric, g, Path(tmp), jail, source)
    g.seconds = time.monotonic() - start
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(g.results_json(), indent=2))
    (out_dir / "report.md").write_text(g.report())
    return g


def _compile(source: Path, classes: Path, jail: _Jail, rubric: dict) -> str:
    """The submitted class; for a test-writing lab, with JUnit and the lab's public helpers."""
    classes.mkdir()
    cp, extra = str(javabuild.handoffs_jar()), []
    if any(t["kind"] == "mutants" for t in rubric["test"]):
        cp = f"{cp}:{javabuild.classpath('checks')}"
        extra = [str(p) for p in sorted((paths.LABS / rubric["lab"] / "public").glob("*.java"))]
    run = jail.run(["javac", "--release", "11", "-Xlint:none", "-proc:none", "-cp", cp,
                    "-d", str(classes), str(source), *extra], timeout=COMPILE_SECONDS)
    if run.timed_out:
        return f"Compiling took longer than {COMPILE_SECONDS} s."
    if run.returncode != 0:
        return "Your code does not compile:\n\n```text\n" + run.output.replace(str(source.parent) + "/", "") + "\n```"
    return ""


def _translate(source: Path, jail: _Jail) -> str:
    """A submitted spec with a PlusCal algorithm is translated first (as the kit's own are)."""
    if "--algorithm" not in source.read_text(errors="replace"):
        return ""
    run = jail.run(["java", "-cp", str(toolchain.tlc_jar()), "pcal.trans", "-nocfg", str(source)],
                   timeout=COMPILE_SECONDS)
    if run.timed_out:
        return f"Translating the PlusCal took longer than {COMPILE_SECONDS} s."
    if run.returncode != 0 or "Translation completed" not in run.output:
        tail = "\n".join(run.output.strip().splitlines()[-10:]).replace(str(source.parent) + "/", "")
        return f"Your PlusCal does not translate:\n\n```text\n{tail}\n```"
    return ""


def _tests_of(rubric: dict, g: Grade, kind: str) -> list[tuple[dict, TestResult]]:
    """The rubric's tests of one kind, each with the result it fills in."""
    return [(spec, result) for spec, result in zip(rubric["test"], g.tests) if spec["kind"] == kind]


# Kinds scored together, by one run over all their tests (each needs every verdict to score any).
_WHOLE_KINDS = {"tlc": lambda r, g, tmp, jail, src: _score_tlc(r, g, src, jail),
                "mutants": lambda r, g, tmp, jail, src: _score_mutants(r, g, tmp, jail),
                "server": lambda r, g, tmp, jail, src: _score_server(r, g, tmp, jail)}


def _run_tests(rubric: dict, g: Grade, tmp: Path, jail: _Jail, source: Path) -> None:
    classes = tmp / "classes"
    junit = [t for t in rubric["test"] if t["kind"] == "junit"]
    junit_results = _run_junit(rubric, classes, tmp, jail) if junit else {}
    for spec, result in zip(rubric["test"], g.tests):
        if spec["kind"] in _WHOLE_KINDS:
            continue
        if spec["kind"] == "junit":
            ok, output = junit_results.get(spec["method"], (False, "The test did not run."))
            result.score = result.max_score if ok else 0.0
            result.output = output
        elif spec["kind"] == "checker":
            _run_checker(spec, rubric["class"], classes, tmp, result, jail)
        else:
            raise LabError(f"labs/{rubric['lab']}/rubric.toml: unknown test kind '{spec['kind']}'",
                           "kinds are junit, checker, tlc, mutants and server")
    for kind, score in _WHOLE_KINDS.items():  # after junit: the server lab runs only if its public test passed
        if any(t["kind"] == kind for t in rubric["test"]):
            score(rubric, g, tmp, jail, source)


def _run_junit(rubric: dict, classes: Path, tmp: Path, jail: _Jail) -> dict[str, tuple[bool, str]]:
    """Compile the lab's public tests against the submission and run them
    with JUnit's console launcher; read its XML report."""
    tests_src = sorted((paths.LABS / rubric["lab"] / "public").glob("*.java"))
    cp = javabuild.classpath("checks")
    test_classes = tmp / "test-classes"
    test_classes.mkdir()
    build = jail.run(["javac", "-Xlint:none", "-proc:none", "-cp", f"{classes}:{cp}", "-d", str(test_classes),
                         *map(str, tests_src)], timeout=COMPILE_SECONDS)
    if build.returncode != 0:
        msg = "The public tests do not compile against your class (did you change its methods?):\n\n```text\n" \
              + build.output + "\n```"
        return {t["method"]: (False, msg) for t in rubric["test"] if t["kind"] == "junit"}
    reports = tmp / "junit-reports"
    run = jail.run(["java", "-cp", f"{test_classes}:{classes}:{cp}", "org.junit.platform.console.ConsoleLauncher",
                       "execute", "--disable-banner", "--details=none", "--scan-class-path", str(test_classes),
                       f"--config=junit.jupiter.execution.timeout.default={JUNIT_TIMEOUT}",
                       "--config=junit.jupiter.execution.timeout.thread.mode.default=SEPARATE_THREAD",
                       "--reports-dir", str(reports)], timeout=TEST_SECONDS)
    results = {}
    for report in reports.glob("*.xml"):
        for case in ET.parse(report).getroot().iter("testcase"):
            method = case.get("name", "").split("(")[0]
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            if failure is None:
                results[method] = (True, "Passed.")
            else:
                results[method] = (False, "Failed: " + (failure.get("message") or failure.text or "")[:2000])
    for t in rubric["test"]:
        if t["kind"] == "junit" and t["method"] not in results:
            results[t["method"]] = (False, (f"Timed out after {TEST_SECONDS} s: a thread probably waits for ever."
                                            if run.timed_out else _ended_early("the public tests", run)))
    return results


def _ended_early(what: str, run: sandbox.Run) -> str:
    return (f"Not graded: {what} ended (exit code {run.returncode}) before reporting. Did your code call "
            "`System.exit` or `Runtime.halt`, or run out of memory? The last output was:\n\n```text\n"
            + run.output[-2000:] + "\n```")


def _run_checker(spec: dict, cls: str, classes: Path, tmp: Path, result: TestResult, jail: _Jail) -> None:
    """A rubric's checker test: `checker`, and optionally `like` (check the class as the kit checks
    that design) and `seconds` (the stress run's length; a rare interleaving needs longer)."""
    checker = spec["checker"]
    out = tmp / f"{checker}.json"
    cmd = javacheck.checker_command(checker, cls, out, float(spec.get("seconds", STRESS_SECONDS)), str(classes),
                                    like=spec.get("like"))
    run = jail.run(cmd, timeout=TEST_SECONDS)
    if run.timed_out:
        result.output = (f"Not graded: the {checker} check ran past {TEST_SECONDS} s without a verdict (a thread that "
                         f"never returns, or a class that never finishes loading?).\n\n```text\n{run.output[-3000:]}\n```")
        return
    if not out.exists():
        result.output = _ended_early(f"the {checker} check", run)
        return
    verdict = json.loads(out.read_text())
    if verdict["verdict"] == "pass":
        result.score = result.max_score
        result.output = f"Passed: {verdict['detail'] or 'no interleaving breaks exactly-once'}."
        return
    result.output = _explain(verdict)
    lane = javacheck.swimlane(verdict)
    if lane and lane.steps:  # a class that never loaded has no schedule to draw
        lane.title = f"your {cls.rpartition('.')[2]} under {checker}"
        result.swimlane_md = lane.markdown()


def _explain(verdict: dict) -> str:
    v = verdict["verdict"]
    if v == "deadlock":
        return ("Failed: the threads hang — none of them can ever finish. Either they all wait and nobody "
                "will wake them (a **lost wake-up**: the acceptor and the workers wait in the same wait set for "
                "different reasons; ask yourself whom each `notify()` can wake — hint 2 in the handout), or a "
                "thread is caught in a loop that never ends.")
    if v.startswith("violation:EventuallyTaken"):
        return ("Failed: the threads keep running, yet no connection is handed over: a loop that never ends "
                "(a livelock), or a thread spinning while it holds the lock.")
    if v.startswith("violation:NoInvented"):
        return ("Failed: a worker took a connection that was never accepted (null). A woken thread went on "
                "without checking its condition again. (Hint 1 in the handout.)")
    if v.startswith("violation:Threw") or (v.startswith("violation:Linearizable") and "Exception #" in
                                            verdict.get("trace", "") + verdict.get("detail", "")):
        return ("Failed: your put or take threw an exception (named below) instead of handing over a "
                "connection. A handoff's methods must wait, never give up.")
    if v.startswith("violation:Linearizable"):
        return ("Failed: Lincheck found an interleaving whose results no sequential handoff can give — a worker "
                "got a connection nobody put, or one twice. Read the interleaving below from top to bottom.")
    return f"Failed: {v} — {verdict.get('detail', '')}"


# -- a spec lab: TLC on the submitted spec, one catalogued configuration per test --------

def _score_tlc(rubric: dict, g: Grade, source: Path, jail: _Jail) -> None:
    """Each `tlc` test names a catalog variant; the submitted spec is checked with that
    variant's cfg. A buggy variant scores when caught, a correct one when it passes — but a
    catch counts only if every correct design passes (a spec that fails everything catches
    nothing), and a pass only if some bug is caught (a spec that checks nothing passes all)."""
    cat = catalog.load()
    shutil.copyfile(paths.SPECS / "Handoff.tla", source.parent / "Handoff.tla")  # the abstract spec is the kit's
    tests = _tests_of(rubric, g, "tlc")
    verdicts = {}
    for spec, _ in tests:
        variant = cat.variant(spec["variant"])
        verdicts[variant.name] = _tlc_verdict(variant, source, jail)
    expected = {name: cat.variant(name).expected("tlc") for name in verdicts}
    correct_pass = all(verdicts[n][0] == "pass" for n in verdicts if cat.variant(n).correct)
    caught_any = any(expected[n] != "pass" and verdicts[n][0] not in ("pass", "error") for n in verdicts)
    for spec, result in tests:
        name = spec["variant"]
        variant, (verdict, detail, lane) = cat.variant(name), verdicts[name]
        what = f"`{name}.cfg` ({variant.bug if not variant.correct else 'the correct design'})"
        if verdict == "error":
            result.output = f"TLC could not check your spec with {what}:\n\n```text\n{detail}\n```"
        elif expected[name] == "pass" and verdict == "pass":
            if caught_any:
                result.score, result.output = result.max_score, f"Passed: your spec accepts {what}, as it should."
            else:
                result.output = (f"Your spec accepts {what}, but it catches none of the buggy variants: a spec "
                                 "that checks nothing accepts everything, so this pass earns nothing yet.")
        elif expected[name] == "pass":
            result.output = (f"Failed: your spec rejects {what}, which the catalog says is correct for "
                             f"exactly-once ({verdict}). {variant.why.get('tlc', '')} Read the trace below.")
        elif verdict == "pass":
            result.output = f"Not caught: your spec accepts {what}. Which property should fail, and in which step?"
        elif correct_pass:
            result.score = result.max_score
            result.output = f"Caught: {what} — TLC reports {verdict}."
        else:
            result.output = (f"Your spec rejects {what} ({verdict}), but it also rejects a correct design, so "
                             "the catch proves nothing yet. Fix the correct designs first.")
        if lane is not None:  # a caught bug's trace teaches too
            lane.title = f"your {source.name} with {name}.cfg under TLC"
            result.swimlane_md = lane.markdown()


def _tlc_verdict(variant, source: Path, jail: _Jail) -> tuple[str, str, object]:
    """(verdict, error text, swimlane) of TLC on the submitted spec with one catalogued cfg."""
    from types import SimpleNamespace

    cfg = source.parent / f"{variant.name}.cfg"
    shutil.copyfile(variant.cfg_file, cfg)
    meta = jail.work / "tlc-meta" / variant.name
    meta.mkdir(parents=True, exist_ok=True)
    run = jail.run(["java", "-XX:+UseParallelGC", "-cp", str(toolchain.tlc_jar()), "tlc2.TLC", "-tool",
                    "-workers", "1", "-metadir", str(meta), "-config", str(cfg), str(source)], timeout=TLC_SECONDS)
    if run.timed_out:
        return "error", f"TLC ran past {TLC_SECONDS} s: is the state space unbounded (a counter with no limit)?", None
    model = SimpleNamespace(name=f"your {source.stem}", spec_file=source, cfg_file=cfg, cfg=cfg.name,
                            handoff=SimpleNamespace(spec=source.stem))
    try:
        result = tlc.parse(model, run.output, 0.0)
    except LabError as e:
        return "error", e.problem.replace(str(source.parent) + "/", "").replace("specs/", ""), None
    return result.verdict, "", result.trace


# -- a test-writing lab: the submitted tests against correct handoffs and mutants -----------

# Submitted tests must judge a handoff by its behaviour only.
_PEEKING = re.compile(r"getClass\b|java\.lang\.reflect|getDeclared|Class\.forName|getProperty|getenv|"
                      r"StackWalker|handofflab\.handoffs\.(?!Handoff\b)|\.class\b")


def _score_mutants(rubric: dict, g: Grade, tmp: Path, jail: _Jail) -> None:
    """Each `mutants` test names one of the kit's handoffs; the submitted JUnit tests run
    against it (through the lab's `Subject`). A buggy one scores when the tests fail it (a
    kill) and only if they pass every correct one; a correct one scores when the tests pass
    it, and only if they kill at least one mutant."""
    cat = catalog.load()
    tests = _tests_of(rubric, g, "mutants")
    source = next(tmp.rglob(rubric["file"]))
    peeking = _PEEKING.search(_code_only(source.read_text(errors="replace")))
    if peeking:
        for _, result in tests:
            result.output = (f"Not graded: your tests use `{peeking.group(0).strip()}`. They must judge a handoff "
                             "by what it does (put, take, timing), never by what it is.")
        return
    cp = javabuild.classpath("checks")
    outcome = {}
    for spec, _ in tests:
        name = spec["handoff"]
        run = jail.run(["java", f"-Dhandofflab.subject={name}", "-cp", f"{tmp / 'classes'}:{cp}",
                        "org.junit.platform.console.ConsoleLauncher", "execute", "--disable-banner",
                        "--details=summary", "--disable-ansi-colors", "--scan-class-path", str(tmp / "classes"),
                        f"--config=junit.jupiter.execution.timeout.default={JUNIT_TIMEOUT}",
                        "--config=junit.jupiter.execution.timeout.thread.mode.default=SEPARATE_THREAD"],
                       timeout=TEST_SECONDS)
        found = re.search(r"(\d+) tests found", run.output)
        if run.timed_out:
            outcome[name] = ("failed", f"your tests ran past {TEST_SECONDS} s")
        elif not found or found.group(1) == "0" or run.returncode == 2:
            outcome[name] = ("none", "no test ran: annotate your test methods with @Test")
        else:
            outcome[name] = ("passed" if run.returncode == 0 else "failed", _junit_failures(run.output))
    correct = [n for n in outcome if cat.variant(n).correct]
    no_false_alarm = all(outcome[n][0] == "passed" for n in correct)
    kills = [n for n in outcome if not cat.variant(n).correct and outcome[n][0] == "failed"]
    for spec, result in tests:
        name = spec["handoff"]
        state, detail = outcome[name]
        if state == "none":
            result.output = f"Not graded: {detail}."
        elif cat.variant(name).correct:
            if state == "failed":
                result.output = f"False alarm: your tests fail `{name}`, a correct handoff.\n\n```text\n{detail}\n```"
            elif kills:
                result.score, result.output = result.max_score, f"No false alarm: your tests pass `{name}`."
            else:
                result.output = (f"Your tests pass `{name}`, but they kill no mutant: tests that pass everything "
                                 "earn nothing for passing.")
        elif state == "passed":
            result.output = f"Survived: your tests pass `{name}` ({cat.variant(name).bug})"
        elif no_false_alarm:
            result.score = result.max_score
            result.output = f"Killed `{name}` ({cat.variant(name).bug}):\n\n```text\n{detail}\n```"
        else:
            result.output = (f"Your tests fail `{name}`, but they also fail a correct handoff, so the kill "
                             "proves nothing. Remove the false alarm first.")


def _junit_failures(output: str) -> str:
    """The console launcher's failure lines, without its tree and colours."""
    lines = [l.strip() for l in output.splitlines() if re.search(r"MethodSource|=>|Exception|Error|expected", l)]
    return "\n".join(lines[:20])[:2000] or output[-1500:]


# -- a server lab: the submitted handoff in the kit's pre-threaded server, under load ----------

def _score_server(rubric: dict, g: Grade, tmp: Path, jail: _Jail) -> None:
    """Runs the papers' experiment (ServerBench: real TCP on 127.0.0.1, the load client) on the
    kit's PreThreadedServer with the submitted handoff. `exactly-once`: every run's requests
    answered once and the server drained; `efficiency`: the median run at `target` or better,
    counted only when exactly-once holds."""
    x = rubric["server"]
    tests = _tests_of(rubric, g, "server")
    if any(r.score < r.max_score for _, r in _tests_of(rubric, g, "junit")):
        for _, result in tests:  # a handoff that fails one thread would hang 2000 clients
            result.output = "Not run: the public test must pass first."
        return
    csv_out = tmp / "server-runs.csv"
    point = f"{x['design']}@{rubric['class']}:{x['t_r']}:{x['workers']}:{x['slots']}"
    run = jail.run(["java", "-cp", f"{tmp / 'classes'}:{javabuild.classpath('servers')}",
                    "handofflab.servers.ServerBench", str(csv_out), str(x["runs"]), str(x["children"]),
                    str(x["requests"]), point], timeout=SERVER_SECONDS)
    rows = list(csv.DictReader(csv_out.open())) if csv_out.exists() else []
    table = "| run | seconds | bound s | efficiency | lost | duplicated | status |\n|---|---|---|---|---|---|---|\n" + \
        "".join(f"| {r['rep']} | {r['seconds']} | {r['bound_seconds']} | {r['efficiency']} | {r['lost']} | "
                f"{r['duplicated']} | {r['status']} |\n" for r in rows)
    complete = len(rows) == int(x["runs"])
    once = complete and all(r["status"] == "ok" for r in rows)
    efficiencies = sorted(float(r["efficiency"]) for r in rows if r["status"] == "ok")
    median = efficiencies[len(efficiencies) // 2] if efficiencies else 0.0
    why = ("" if complete else
           f"Only {len(rows)} of {x['runs']} runs finished" + (f": the runs took longer than {SERVER_SECONDS} s "
           "(a worker or the acceptor waits for ever?)" if run.timed_out else ".\n\n" + _ended_early("the server", run)))
    for spec, result in tests:
        if spec["check"] == "exactly-once":
            if once:
                result.score, result.output = result.max_score, "Passed: every request answered exactly once.\n\n" + table
            else:
                result.output = (why or "Failed: requests were lost, duplicated or invented, or the server did not "
                                 "drain (the status column says which).") + "\n\n" + table
        elif spec["check"] == "efficiency":
            target = float(spec["target"])
            if once and median >= target:
                result.score = result.max_score
                result.output = f"Passed: median efficiency {median:.3f} ≥ {target}.\n\n" + table
            elif once:
                result.output = (f"Failed: median efficiency {median:.3f} < {target}: the handoff holds the server "
                                 "back. What does a thread that cannot go on do: wait to be woken, or spin? "
                                 "(hint 2)\n\n" + table)
            else:
                result.output = "Not counted: the server must serve every request exactly once first."
        else:
            raise LabError(f"labs/{rubric['lab']}/rubric.toml: unknown server check '{spec['check']}'",
                           "checks are exactly-once and efficiency")


# -- repeatability ---------------------------------------------------------------------

def reruns(lab: str, submission: Path, runs: int, out_dir: Path | None = None) -> dict:
    """Grades one submission `runs` times: every run must give the same marks, test by test
    (a correct solution full marks every time, a buggy one its failures every time). Writes
    reruns.csv (one row per run: seconds and each test's score) and exits 1 on any difference."""
    from handofflab.console import ok, progress

    out_dir = out_dir or paths.RESULTS / "grading" / lab / f"{submission.resolve().stem}-reruns"
    out_dir.mkdir(parents=True, exist_ok=True)
    rows, first = [], None
    with progress() as bar:
        task = bar.add_task(f"grading {submission.name} {runs} times", total=runs)
        for i in range(runs):
            g = grade(lab, submission, out_dir / "last")
            marks = [t.score for t in g.tests]
            first = first or marks
            rows.append({"run": i + 1, "seconds": round(g.seconds, 1), "score": g.score,
                         **{t.name: t.score for t in g.tests}})
            bar.update(task, advance=1, description=f"run {i + 1}: {g.score:g}/{g.max_score:g}"
                       + ("" if marks == first else "  ← DIFFERENT"))
    with (out_dir / "reruns.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    seconds = sorted(r["seconds"] for r in rows)
    differing = [r["run"] for r in rows if [r[t.name] for t in g.tests] != first]
    summary = {"runs": runs, "marks": first, "differing_runs": differing,
               "median_s": seconds[len(seconds) // 2], "worst_s": seconds[-1]}
    if differing:
        raise LabError(f"{submission.name}: {len(differing)} of {runs} runs gave other marks than run 1 "
                       f"(runs {differing[:10]}): the grade is not repeatable", f"see {out_dir / 'reruns.csv'}")
    ok(f"{submission.name}: the same marks {first} in all {runs} runs; grading took {summary['median_s']} s "
       f"(median), {summary['worst_s']} s (worst) → {out_dir / 'reruns.csv'}")
    return summary


# -- many submissions -------------------------------------------------------------

def submissions_in(folder: Path) -> list[Path]:
    """Each subfolder or .zip of `folder` is one submission (hidden files and others ignored)."""
    if not folder.is_dir():
        raise LabError(f"{folder} is not a folder of submissions", "pass a folder holding one subfolder or .zip per student")
    found = sorted(p for p in folder.iterdir() if not p.name.startswith(".") and not p.is_symlink()
                   and (p.is_dir() or p.suffix == ".zip"))
    if not found:
        raise LabError(f"{folder} holds no submissions", "put one subfolder or .zip per student in it")
    return found


def grade_batch(lab: str, folder: Path, out_dir: Path | None = None, jobs: int | None = None) -> Path:
    """Grades every submission in `folder`, `jobs` at a time, each hidden from the others;
    writes out_dir/NAME/{results.json,report.md} and out_dir/gradebook.csv. A submission that
    breaks the grader itself is a row with its error, never the end of the batch."""
    import concurrent.futures

    from handofflab.console import ok, progress, warn

    rubric = load_rubric(lab)
    folder = folder.resolve()
    subs = submissions_in(folder)
    out_dir = (out_dir or paths.RESULTS / "grading" / lab / f"batch-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = jobs or max(1, min(4, (os.cpu_count() or 2)))
    if jobs > 1 and any(t["kind"] == "server" for t in rubric["test"]):
        # A server's efficiency is measured against the clock: two gradings at once would take
        # each other's cores and fail correct servers.
        warn(f"lab {lab} measures efficiency: grading one submission at a time (not {jobs})")
        jobs = 1
    names = [t["name"] for t in rubric["test"]]
    rows, start = [], time.monotonic()

    def one(sub: Path) -> dict:
        row = {"submission": sub.name}
        try:
            g = grade(lab, sub, out_dir / sub.stem, hide=(folder,))
            row.update(score=g.score, max_score=g.max_score, seconds=round(g.seconds, 1), problem=g.problem[:200])
            row.update({n: t.score for n, t in zip(names, g.tests)})
        except Exception as e:  # the grader's own failure: recorded, and the batch goes on
            row.update(score="", max_score=sum(t["points"] for t in rubric["test"]), seconds="",
                       problem=f"GRADER ERROR: {type(e).__name__}: {e}"[:200])
        return row

    with progress() as bar, concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        task = bar.add_task(f"grading {len(subs)} submissions of {lab}, {jobs} at a time", total=len(subs))
        for row in pool.map(one, subs):
            rows.append(row)
            bar.update(task, description=f"{row['submission']}: {row['score']} / {row['max_score']}", advance=1)
    gradebook = out_dir / "gradebook.csv"
    with gradebook.open("w", newline="") as f:
        w = csv.DictWriter(f, ["submission", "score", "max_score", *names, "seconds", "problem"])
        w.writeheader()
        w.writerows(rows)
    errors = [r for r in rows if str(r["problem"]).startswith("GRADER ERROR")]
    if errors:
        warn(f"{len(errors)} submission(s) could not be graded: see the problem column")
    secs = sorted(r["seconds"] for r in rows if r["seconds"] != "")
    if secs:
        ok(f"{len(rows)} graded in {time.monotonic() - start:.0f} s ({jobs} at a time; per submission: median "
           f"{secs[len(secs) // 2]:.0f} s, worst {secs[-1]:.0f} s) — gradebook: {gradebook}")
    return gradebook
