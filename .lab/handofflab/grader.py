"""`./lab grade LAB SUBMISSION`: grades one submission (a folder or a zip) by
the lab's rubric (labs/LAB/rubric.toml) and writes Gradescope's results.json
and a readable report.md, with failing schedules drawn as swimlanes.

Public tests are the lab's JUnit tests; hidden tests are the kit's own
checkers (Lincheck, the stress watchdog) run on the submitted class.  Every
run of submitted code goes through `sandbox.run`."""
from __future__ import annotations

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

from handofflab import javabuild, javacheck, paths, sandbox
from handofflab.console import LabError

COMPILE_SECONDS = 60
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
    package = rubric["class"].rpartition(".")[0]
    if not re.search(rf"^\s*package\s+{re.escape(package)}\s*;", found[0].read_text(errors="replace"), re.M):
        return None, (f"`{rubric['file']}` must start with `package {package};` (as the starter does): "
                      "the grader and the tests look for the class there.")
    return found[0], ""


# -- grading ----------------------------------------------------------------------

def grade(lab: str, submission: Path, out_dir: Path | None = None, hide: tuple[Path, ...] = ()) -> Grade:
    """Grades one submission. Its code sees neither the hidden tests (grading/), nor other
    grading results, nor where it came from, nor anything in `hide` (grade-batch: the other
    submissions)."""
    rubric = load_rubric(lab)
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
            problem = _compile(source, Path(tmp) / "classes", jail)
        if problem:
            g.problem = problem + (f"\n\nIgnored: {', '.join(refused)}" if refused else "")
            for t in g.tests:
                t.output = "Not run: the submission could not be built (see above)."
        else:
            _run_tests(rubric, g, Path(tmp), jail)
    g.seconds = time.monotonic() - start
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(g.results_json(), indent=2))
    (out_dir / "report.md").write_text(g.report())
    return g


def _compile(source: Path, classes: Path, jail: _Jail) -> str:
    classes.mkdir()
    run = jail.run(["javac", "--release", "11", "-Xlint:none", "-proc:none", "-cp", str(javabuild.handoffs_jar()),
                    "-d", str(classes), str(source)], timeout=COMPILE_SECONDS)
    if run.timed_out:
        return f"Compiling took longer than {COMPILE_SECONDS} s."
    if run.returncode != 0:
        return "Your code does not compile:\n\n```text\n" + run.output.replace(str(source.parent) + "/", "") + "\n```"
    return ""


def _run_tests(rubric: dict, g: Grade, tmp: Path, jail: _Jail) -> None:
    classes = tmp / "classes"
    junit = [t for t in rubric["test"] if t["kind"] == "junit"]
    junit_results = _run_junit(rubric, classes, tmp, jail) if junit else {}
    for spec, result in zip(rubric["test"], g.tests):
        if spec["kind"] == "junit":
            ok, output = junit_results.get(spec["method"], (False, "The test did not run."))
            result.score = result.max_score if ok else 0.0
            result.output = output
        elif spec["kind"] == "checker":
            _run_checker(spec["checker"], rubric["class"], classes, tmp, result, jail)
        else:
            raise LabError(f"labs/{rubric['lab']}/rubric.toml: unknown test kind '{spec['kind']}'",
                           "kinds are junit and checker")


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


def _run_checker(checker: str, cls: str, classes: Path, tmp: Path, result: TestResult, jail: _Jail) -> None:
    out = tmp / f"{checker}.json"
    run = jail.run(javacheck.checker_command(checker, cls, out, STRESS_SECONDS, str(classes)), timeout=TEST_SECONDS)
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
    if v.startswith("violation:NoInvented"):
        return ("Failed: a worker took a connection that was never accepted (null). A woken thread went on "
                "without checking its condition again. (Hint 1 in the handout.)")
    if v.startswith("violation:Linearizable"):
        return ("Failed: Lincheck found an interleaving whose results no sequential buffer can give — here a "
                "worker got a connection nobody put. Read the interleaving below from top to bottom. (Hint 1.)")
    return f"Failed: {v} — {verdict.get('detail', '')}"


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
    import csv

    from handofflab.console import ok, progress, warn

    rubric = load_rubric(lab)
    folder = folder.resolve()
    subs = submissions_in(folder)
    out_dir = (out_dir or paths.RESULTS / "grading" / lab / f"batch-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = jobs or max(1, min(4, (os.cpu_count() or 2)))
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
