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

import concurrent.futures
import csv
import io
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from handofflab import allowlist, catalog, javabuild, javacheck, paths, sandbox, tlc, toolchain
from handofflab.console import LabError

COMPILE_SECONDS = 60
SERVER_SECONDS = 240            # the server lab's 9 runs (yours and the kit's on 2000 requests, yours on 500 on a full ring):
                                # about 20 s when the handoff works, about 45 s when it spins
TLC_SECONDS = 60                # one TLC run of a submitted spec; the kit's own models need under 5
TEST_SECONDS = 120              # one JVM of tests or of a checker: about 15 s when the machine is quiet; the
                                # slack is for a busy one (a hang is caught sooner: JUnit timeouts, the watchdog)
SERVER_REPLY_MS = 3_000          # a reply takes t_r (20 ms) plus its queueing: 3 s is 150 t_r, i.e. lost
JUNIT_TIMEOUT = "5 s"           # per public test, enforced from another thread: a spin ignores interrupts
STRESS_SECONDS = 3.0
# Every JVM that runs submitted code: a heap the machine can afford, no perf-data file in the
# (read-only) /tmp, and temporary files in the submission's own folder.
JVM_OPTIONS = "-Xmx1g -XX:-UsePerfData -Djava.io.tmpdir={work}/jvm-tmp"


class _Jail:
    """Where one grading's sandboxed runs may write (`work`), what they must not read, the uid
    they run as (one per grading) and the few environment variables they get (none of the
    grader's own: its environment can hold secrets and paths the submission must not learn)."""

    def __init__(self, work: Path, hide: tuple[Path, ...]):
        self.work, self.hide, self.uid = work, hide, sandbox.new_uid()
        (work / "jvm-tmp").mkdir(exist_ok=True)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(work),
                    "JAVA_TOOL_OPTIONS": JVM_OPTIONS.format(work=work)}
        if os.environ.get("JAVA_HOME"):
            self.env["JAVA_HOME"] = os.environ["JAVA_HOME"]

    def run(self, cmd: list[str], timeout: float, stdin: str | None = None) -> sandbox.Run:
        sandbox.prepare(self.work, self.uid)
        r = sandbox.run(cmd, timeout, env=self.env, work=self.work, hide=self.hide, stdin=stdin, uid=self.uid)
        r.output = "\n".join(l for l in r.output.splitlines() if not l.startswith("Picked up JAVA_TOOL_OPTIONS"))
        return r


@dataclass
class TestResult:
    name: str
    max_score: float
    score: float = 0.0
    output: str = ""
    swimlane_md: str = ""
    hidden: bool = False    # Gradescope shows it to the student only once grades are published
    pending: bool = False   # not graded for the machine's sake (too busy to finish): regrade, never blame

    def gradescope(self) -> dict:
        return {"name": self.name, "score": self.score, "max_score": self.max_score,
                "status": "passed" if self.score == self.max_score else "failed",
                "output": self.output + (("\n\n" + self.swimlane_md) if self.swimlane_md else ""),
                "output_format": "md", "visibility": "after_published" if self.hidden else "visible"}


@dataclass
class Grade:
    lab: str
    submission: str
    tests: list[TestResult] = field(default_factory=list)
    problem: str = ""       # why nothing could be graded (no file, no compile), if so
    seconds: float = 0.0
    isolation: str = "full"     # the sandbox level that graded it (sandbox.ISOLATION)
    grader_error: str = ""      # the grader's own failure, if any: the marks mean nothing then

    @property
    def score(self) -> float:
        return sum(t.score for t in self.tests)

    @property
    def pending(self) -> bool:
        """Some test could not be graded for the machine's sake: the instructor must regrade."""
        return any(t.pending for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t.max_score for t in self.tests)

    def results_json(self) -> dict:
        weak = "" if self.isolation == "full" else f"\n\nGraded with weak isolation: {self.isolation}."
        return {"score": self.score, "max_score": self.max_score, "execution_time": round(self.seconds, 1),
                "output": (self.problem or f"{self.score:g} / {self.max_score:g} points") + weak,
                "output_format": "md", "tests": [t.gradescope() for t in self.tests],
                "extra_data": {"isolation": self.isolation, "grader_error": self.grader_error,
                               "pending": [t.name for t in self.tests if t.pending]}}

    def report(self) -> str:
        lines = [f"# {self.lab}: {self.score:g} / {self.max_score:g} points", "",
                 f"Submission: `{self.submission}`", "", f"Isolation: {self.isolation}", ""]
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

UNPACK_FILES = 200              # files a submission may hold (the labs need one)
UNPACK_BYTES = 8 * 1024 * 1024  # bytes, all files together, once unpacked
_NAME = re.compile(r"[\w.+@ -]+")  # a path component a submission may use


class Refused(Exception):
    """A submission that cannot be unpacked within the limits."""


def unpack(submission: Path, into: Path) -> list[str]:
    """Copy a folder, or extract a zip, into `into` — never writing outside it, never following
    a link, and within UNPACK_FILES files and UNPACK_BYTES bytes (a zip bomb is refused at its
    first byte over). Returns what was left out; raises Refused over the limits."""
    if submission.is_dir():
        entries = [(str(src.relative_to(submission)), src) for src in sorted(submission.rglob("*"))]
    elif zipfile.is_zipfile(submission):
        with zipfile.ZipFile(submission) as z:
            return _unpack_zip(z, into)
    else:
        raise LabError(f"{submission} is neither a folder nor a zip file", "pass the submission's folder or .zip")
    refused, budget = [], [UNPACK_FILES, UNPACK_BYTES]
    for rel, src in entries:
        if src.is_symlink():
            refused.append(f"{rel} (a symbolic link)")
        elif src.is_file():
            with src.open("rb") as f:
                _write_entry(rel, f, into, budget, refused)
    return refused


def _unpack_zip(z: zipfile.ZipFile, into: Path) -> list[str]:
    refused, budget = [], [UNPACK_FILES, UNPACK_BYTES]
    for info in z.infolist():
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            refused.append(f"{info.filename} (a symbolic link)")
        elif not info.is_dir():
            with z.open(info) as f:
                _write_entry(info.filename, f, into, budget, refused)
    return refused


def _write_entry(name: str, src, into: Path, budget: list[int], refused: list[str]) -> None:
    """One file of a submission, copied under the budget [files left, bytes left]."""
    parts = name.replace("\\", "/").split("/")
    if name.startswith("/") or any(p in ("", ".", "..") or not _NAME.fullmatch(p) or len(p) > 100 for p in parts):
        refused.append(f"{name[:120]} (a name a submission may not use: letters, digits, '.', '-', '_' only)")
        return
    target = into.joinpath(*parts)
    if any(p.exists() and not p.is_dir() for p in target.parents if p.is_relative_to(into)) or target.is_dir():
        refused.append(f"{name} (it collides with another entry of the same name)")
        return
    if target.exists():
        refused.append(f"{name} (a second entry of the same name)")
        return
    budget[0] -= 1
    if budget[0] < 0:
        raise Refused(f"the submission holds more than {UNPACK_FILES} files; submit only `the lab's file`")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as dst:
        while chunk := src.read(65536):
            budget[1] -= len(chunk)
            if budget[1] < 0:
                raise Refused(f"the submission unpacks to more than {UNPACK_BYTES // 1024 // 1024} MiB")
            dst.write(chunk)


def _find_source(work: Path, rubric: dict) -> tuple[Path | None, str]:
    found = sorted(p for p in work.rglob(rubric["file"]) if p.is_file() and not p.is_symlink())
    if not found:
        return None, (f"The submission has no `{rubric['file']}`. Submit that one file (or a folder or zip "
                      f"containing it), as in labs/{rubric['lab']}/starter/.")
    if len(found) > 1:
        return None, f"The submission has {len(found)} files called `{rubric['file']}`; submit exactly one."
    if not rubric["file"].endswith(".java"):
        return found[0], ""
    package = rubric["class"].rpartition(".")[0]
    if not re.search(rf"^\s*package\s+{re.escape(package)}\s*;", found[0].read_text(errors="replace"), re.M):
        return None, (f"`{rubric['file']}` must start with `package {package};` (as the starter does): "
                      "the grader and the tests look for the class there.")
    return found[0], ""


# -- grading ----------------------------------------------------------------------

class WeakIsolation(LabError):
    """The host cannot isolate submitted code fully and the instructor did not allow less."""


def grade(lab: str, submission: Path, out_dir: Path | None = None, hide: tuple[Path, ...] = (),
          rubric: dict | None = None, allow_weak_isolation: bool = False) -> Grade:
    """Grades one submission. Its code sees neither the hidden tests (grading/), nor the kit's
    history (.git), nor other grading results, nor where it came from, nor anything in `hide`
    (grade-batch: the other submissions). `rubric`: instead of the lab's own (the hostile suite
    grades with a lighter one). Whatever happens, out_dir/results.json is valid and says at
    which isolation level the submission was graded; a failure of the grader itself is marked."""
    rubric = rubric or load_rubric(lab)
    submission = submission.resolve()
    if not submission.exists():
        raise LabError(f"submission not found: {submission}", "pass a folder or a .zip")
    if sandbox.ISOLATION != "full" and not allow_weak_isolation:
        raise WeakIsolation(f"this host cannot isolate submitted code: {sandbox.ISOLATION}",
                            "grade as root on a host that allows namespaces (CI, a grading server), or pass "
                            "--allow-weak-isolation to grade anyway; every report will then say so")
    out_dir = out_dir or paths.RESULTS / "grading" / lab / submission.stem
    g = Grade(lab, str(submission), isolation=sandbox.ISOLATION)
    g.tests = [TestResult(t["name"], float(t["points"]), hidden=bool(t.get("hidden", t["name"].startswith("hidden"))))
               for t in rubric["test"]]
    start = time.monotonic()
    try:
        _grade_into(g, rubric, submission, hide)
    except Exception as e:  # the grader's own failure: still a valid results.json, marked as such
        g.grader_error = f"{type(e).__name__}: {getattr(e, 'problem', e)}"
        g.problem = ("The grader itself failed, not your code; nothing was scored. Please tell your instructor "
                     f"(`{g.grader_error[:300]}`).")
        for t in g.tests:
            t.score, t.output = 0.0, "Not graded: the grader failed (see above)."
    g.seconds = time.monotonic() - start
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(g.results_json(), indent=2))
    (out_dir / "report.md").write_text(g.report())
    return g


def _grade_into(g: Grade, rubric: dict, submission: Path, hide: tuple[Path, ...]) -> None:
    with tempfile.TemporaryDirectory(prefix=f"grade-{g.lab}-") as tmp:
        work = Path(tmp) / "submission"
        work.mkdir()
        try:
            refused = unpack(submission, work)
        except Refused as e:
            g.problem = f"The submission was not unpacked: {e}. Submit only `{rubric['file']}`."
            for t in g.tests:
                t.output = "Not run: the submission could not be unpacked (see above)."
            return
        source, problem = _find_source(work, rubric)
        jail = _Jail(Path(tmp), (paths.ROOT / "grading", paths.ROOT / ".git", paths.RESULTS,
                                 submission if submission.is_dir() else submission.parent, *hide))
        if source and not problem and source.suffix == ".tla":
            # alone in a folder of its own: nothing the submission brings (a module of the same name
            # as a standard one, a class TLC would load as an override) lies beside it
            alone = Path(tmp) / "spec" / source.name
            alone.parent.mkdir()
            shutil.copyfile(source, alone)
            source = alone
        if source and not problem:
            problem = (_translate(source, jail) if source.suffix == ".tla"
                       else _compile(source, Path(tmp) / "classes", jail, rubric))
        if problem:
            g.problem = problem + (f"\n\nIgnored: {', '.join(refused)}" if refused else "")
            for t in g.tests:
                t.output = "Not run: the submission could not be built (see above)."
        else:
            _run_tests(rubric, g, Path(tmp), jail, source)


def _compile(source: Path, classes: Path, jail: _Jail, rubric: dict) -> str:
    """The submitted class, then its bytecode held to the lab's API profile (labs/allowed-api.toml).
    A test-writing lab's public helpers are compiled apart (into kit-classes), so that only
    what the student wrote is in `classes` and held to the profile."""
    classes.mkdir()
    cp = str(javabuild.handoffs_jar())
    helpers = sorted((paths.LABS / rubric["lab"] / "public").glob("*.java"))
    if any(t["kind"] == "mutants" for t in rubric["test"]):
        kit = classes.parent / "kit-classes"
        kit.mkdir()
        cp = f"{cp}:{javabuild.classpath('checks')}"
        run = jail.run(["javac", "--release", "11", "-Xlint:none", "-proc:none", "-cp", cp, "-d", str(kit),
                        *map(str, helpers)], timeout=COMPILE_SECONDS)
        if run.returncode != 0:
            raise LabError(f"lab {rubric['lab']}'s public helpers do not compile:\n{run.output[-2000:]}",
                           "rebuild the kit (`./lab test`) or restore labs/ from git")
        cp = f"{kit}:{cp}"
    run = jail.run(["javac", "--release", "11", "-Xlint:none", "-proc:none", "-cp", cp,
                    "-d", str(classes), str(source)], timeout=COMPILE_SECONDS)
    if run.timed_out:
        return f"Compiling took longer than {COMPILE_SECONDS} s."
    if run.returncode != 0:
        return "Your code does not compile:\n\n```text\n" + run.output.replace(str(source.parent) + "/", "") + "\n```"
    return _check_api(classes, jail, rubric)


def _check_api(classes: Path, jail: _Jail, rubric: dict) -> str:
    """Refuses a submission whose bytecode uses what its lab's profile does not allow."""
    files = sorted(str(p) for p in classes.rglob("*.class"))
    run = jail.run(["javap", "-v", "-p", *files], timeout=COMPILE_SECONDS)
    parsed = allowlist.parse_javap(run.output)
    if run.returncode != 0 or len(parsed) != len(files):
        return "Your compiled classes could not be read back by `javap`:\n\n```text\n" + run.output[-2000:] + "\n```"
    profile = allowlist.load(rubric.get("api", "handoff"), tuple(rubric.get("forbid", ())))
    found = allowlist.violations(parsed, profile)
    if not found:
        return ""
    listed = "\n".join(f"- {v}" for v in found[:20]) + (f"\n- … and {len(found) - 20} more" if len(found) > 20 else "")
    return (f"`{rubric['file']}` uses what a submission to lab {rubric['lab']} may not use, so it was not run:\n\n"
            f"{listed}\n\nA handoff needs only monitors, locks, atomics and collections; files, processes, "
            "reflection, system properties and ending the JVM are refused, because the checkers run your class in "
            "their own JVM. `labs/allowed-api.toml` lists what is allowed.")


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
    run, cases = _junit(jail, f"{test_classes}:{classes}:{cp}", test_classes, tmp / "junit-reports")
    results = {method: (ok, "Passed." if ok else "Failed: " + message) for method, ok, message in cases}
    for t in rubric["test"]:
        if t["kind"] == "junit" and t["method"] not in results:
            results[t["method"]] = (False, (f"Timed out after {TEST_SECONDS} s: a thread probably waits for ever."
                                            if run.timed_out else _ended_early("the public tests", run)))
    return results


REPORT_CAP = 4 * 1024 * 1024    # bytes of a report file the grader reads (a JUnit XML, a verdict, a CSV)


class MalformedReport(Exception):
    """A report file that is missing, not a regular file, too large, or not what its reader expects."""


def read_report(path: Path) -> str:
    """Exactly the file at `path`: a regular file (never a link, nor under one), at most REPORT_CAP bytes."""
    if os.path.realpath(path) != os.path.abspath(path):
        raise MalformedReport(f"{path.name} lies behind a symbolic link")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO must not block the grader
    except OSError as e:
        raise MalformedReport(f"{path.name}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise MalformedReport(f"{path.name} is not a regular file")
        if st.st_size > REPORT_CAP:
            raise MalformedReport(f"{path.name} has {st.st_size} bytes (more than {REPORT_CAP})")
        return f.read(REPORT_CAP).decode("utf-8", "replace")


def _junit(jail: _Jail, classpath: str, scan: Path, reports: Path, props: tuple[str, ...] = ()
           ) -> tuple[sandbox.Run, list[tuple[str, bool, str]]]:
    """JUnit's console launcher on the test classes in `scan`; (method, passed, message) for each
    test its XML report lists. A report that is missing or malformed lists nothing."""
    run = jail.run(["java", *props, "-cp", classpath, "org.junit.platform.console.ConsoleLauncher",
                    "execute", "--disable-banner", "--details=none", "--disable-ansi-colors",
                    "--scan-class-path", str(scan),
                    f"--config=junit.jupiter.execution.timeout.default={JUNIT_TIMEOUT}",
                    "--config=junit.jupiter.execution.timeout.thread.mode.default=SEPARATE_THREAD",
                    "--reports-dir", str(reports)], timeout=TEST_SECONDS)
    cases = []
    try:
        root = ET.fromstring(read_report(reports / "TEST-junit-jupiter.xml"))
    except (MalformedReport, ET.ParseError):
        return run, cases
    for case in root.iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        message = "" if failure is None else (failure.get("message") or failure.text or "")[:2000]
        cases.append((case.get("name", "").split("(")[0], failure is None and case.find("skipped") is None,
                      message or ("skipped" if case.find("skipped") is not None else "")))
    return run, cases


def _ended_early(what: str, run: sandbox.Run) -> str:
    return (f"Not graded: {what} ended (exit code {run.returncode}) before reporting. Did your code call "
            "`System.exit` or `Runtime.halt`, or run out of memory? The last output was:\n\n```text\n"
            + run.output[-2000:] + "\n```")


def _run_checker(spec: dict, cls: str, classes: Path, tmp: Path, result: TestResult, jail: _Jail) -> None:
    """A rubric's checker test: `checker` (one, or a list run in turn: the test passes only if
    every one passes, so a bug that one of them finds every run is a deterministic mark even
    when another finds it only by luck), and optionally `like` (check the class as the kit
    checks that design) and `seconds` (the stress run's length)."""
    checkers = spec["checker"] if isinstance(spec["checker"], list) else [spec["checker"]]
    passed = []
    for checker in checkers:
        verdict, problem = _checker_verdict(checker, spec, cls, classes, tmp, jail)
        if problem:
            result.output, result.pending = problem, bool(verdict.get("pending"))
            return
        if verdict["verdict"] != "pass":
            result.output = _explain(verdict)
            lane = javacheck.swimlane(verdict)
            if lane and lane.steps:  # a class that never loaded has no schedule to draw
                lane.title = f"your {cls.rpartition('.')[2]} under {checker}"
                result.swimlane_md = lane.markdown()
            return
        passed.append(f"{checker}: {verdict['detail'] or 'no interleaving breaks exactly-once'}")
    result.score = result.max_score
    result.output = "Passed: " + "; ".join(passed) + "."


def _checker_verdict(checker: str, spec: dict, cls: str, classes: Path, tmp: Path, jail: _Jail
                     ) -> tuple[dict, str]:
    """(the verdict, "") of one checker on the submitted class, or ({}, why there is none)."""
    out = tmp / f"{checker}.json"
    seconds = float(spec.get("seconds", STRESS_SECONDS))
    # The checker names a hang or an endless loop itself (its watchdog, Lincheck's own limits, a
    # 10 s limit on loading the class); running past the budget without a verdict, or a stress run
    # with no finished trial ("incomplete"), means the machine was too slow to finish. Once more
    # with twice the budget, then: not graded, regrade.
    for attempt, budget in enumerate((TEST_SECONDS, 2 * TEST_SECONDS)):
        out.unlink(missing_ok=True)
        cmd = javacheck.checker_command(checker, cls, out, seconds * (1 + attempt), str(classes),
                                        like=spec.get("like"))
        nonce = secrets.token_hex(16)   # read by the checker before the submitted class loads
        run = jail.run([*cmd, "--nonce-stdin"], timeout=budget, stdin=nonce + "\n")
        if run.timed_out:
            continue
        if not out.exists():
            return {}, _ended_early(f"the {checker} check", run)
        try:
            verdict = json.loads(read_report(out))
            if not isinstance(verdict, dict) or verdict.get("nonce") != nonce:
                raise MalformedReport("it does not carry the nonce this grading gave the checker")
            verdict["verdict"], verdict["detail"]  # noqa: B018 (the keys every verdict has)
        except (MalformedReport, ValueError, KeyError) as e:
            return {}, (f"Not graded: the {checker} check's report is malformed ({e}). The checker writes it; "
                        "a submission that could change it is refused before it runs, so please tell your "
                        "instructor.")
        if verdict["verdict"] != "incomplete":
            return verdict, ""
    if run.timed_out:
        return {"pending": True}, (
            f"Not graded: the {checker} check ran past {TEST_SECONDS} s and then {2 * TEST_SECONDS} s without a "
            "verdict. The checker names hangs and endless loops itself, so the grading machine was too busy: "
            f"your instructor will regrade.\n\n```text\n{run.output[-3000:]}\n```")
    return {"pending": True}, (
        f"Not graded: the {checker} check finished no trial, twice (the second time with {2 * seconds:g} s): "
        f"{verdict['detail']}. The grading machine was too busy, or your handoff is very slow (each "
        "connection should pass in microseconds): your instructor will regrade.")


def _explain(verdict: dict) -> str:
    v = verdict["verdict"]
    if v == "deadlock":
        return _explain_hang(verdict.get("trace", "") + "\n" + verdict.get("detail", ""))
    if v.startswith("violation:EventuallyTaken"):
        return ("Failed: the threads keep running, yet no connection is handed over: a loop that never ends "
                "(a livelock), or a thread spinning while it holds the lock.")
    if v.startswith("violation:NoInvented"):
        return ("Failed: a worker took a connection that was never accepted (null). Either a woken thread went on "
                "without checking its condition again (hint 1 in the handout), or a slot was read or written "
                "outside the lock that guards it: the interleaving below shows which.")
    if v.startswith("violation:Threw") or (v.startswith("violation:Linearizable") and "Exception #" in
                                            verdict.get("trace", "") + verdict.get("detail", "")):
        return ("Failed: your put or take threw an exception (named below) instead of handing over a "
                "connection. A handoff's methods must wait, never give up.")
    if v.startswith("violation:Linearizable"):
        return ("Failed: Lincheck found an interleaving whose results no sequential handoff can give — a worker "
                "got a connection nobody put, or one twice. Read the interleaving below from top to bottom.")
    return f"Failed: {v} — {verdict.get('detail', '')}"


_SPINS = re.compile(r"repeat(s|ed)? infinitely|active lock|livelock|spin[- ]?(cycle|loop)", re.I)
_WAITS = re.compile(r"\b(PARK|WAIT)\b|\.await\(|\bwait\(\)|\bacquire\(\)|\bWAITING\b|every thread is waiting")


def _explain_hang(seen: str) -> str:
    """A hang's feedback, from what the counterexample shows: threads that wait for ever are
    not threads that spin for ever, and neither tells a lost wake-up from a dropped item."""
    head = "Failed: the threads hang — none of them can ever finish. "
    waiting = ("Every thread waits, and nobody is left to wake it. Look at what each one waits for: a "
               "**lost wake-up** (a `notify()` or `signal()` that woke a thread waiting for another reason, "
               "so the one that could go on sleeps for ever), or a `put` that returned without storing its "
               "connection, so a `take` waits for one that never comes.")
    spinning = ("A thread is caught in a loop it never leaves: it spins on a condition no other thread can "
                "make true — a probe sequence that never reaches the slot it needs, or a busy-wait nobody ends.")
    if _SPINS.search(seen):
        return head + spinning
    if _WAITS.search(seen):
        return head + waiting + " The interleaving below shows who waits, and the last wake-up."
    return (head + "The checker saw no trace to tell which of these it is: every thread waiting (a **lost "
            "wake-up**, or a `put` that returned without storing its connection) or a thread spinning in a "
            "loop it never leaves (a probe sequence that misses slots, a busy-wait).")


# -- a spec lab: TLC on the submitted spec, one catalogued configuration per test --------

SPEC_MODULES = {"Integers", "Naturals", "Sequences", "FiniteSets"}  # what a submitted spec may EXTEND
# (not TLC: its Print/PrintT could write lines that read as TLC's own messages)
TRANSLATION_END = "\\* END TRANSLATION"


def _spec_problem(source: Path, rubric: dict) -> str:
    """What a submitted spec may not do, found in its text before TLC runs: extend a module other
    than the standard ones, instance anything but Handoff, or let its properties read the
    constants that say which variant is being checked (a property must judge the behaviour)."""
    text = source.read_text(errors="replace")
    x = rubric.get("spec", {})
    for line in re.findall(r"\bEXTENDS\b([^\n]*)", text):
        bad = sorted(set(re.findall(r"\w+", line)) - SPEC_MODULES)
        if bad:
            return (f"`{source.name}` extends {', '.join(f'`{b}`' for b in bad)}: a submission may extend only "
                    f"{', '.join(sorted(SPEC_MODULES))} (the grader puts Handoff.tla beside it for INSTANCE).")
    instances = set(re.findall(r"\bINSTANCE\s+(\w+)", text)) - {"Handoff"}
    if instances:
        return f"`{source.name}` instances {sorted(instances)}: only `INSTANCE Handoff` is allowed."
    if TRANSLATION_END not in text:
        return f"`{source.name}` has lost its `{TRANSLATION_END}` line (keep the starter's BEGIN/END TRANSLATION)."
    properties = text.split(TRANSLATION_END, 1)[1]
    peeking = [k for k in x.get("knobs", []) if re.search(rf"\b{re.escape(k)}\b", properties)]
    if peeking:
        return (f"The properties of `{source.name}` (below the translation) read {', '.join(f'`{k}`' for k in peeking)}: "
                "those constants say which variant TLC checks. A property must judge what happens "
                "(accepted, taken, the pipes), not which design it is told it is looking at.")
    return ""


def _spec_variants(source: Path, rubric: dict, work: Path) -> dict[str, Path]:
    """The submitted spec, and its two halves each put beside the other half of the kit's own
    spec (its algorithm above the translation's end, its properties below): the submission's
    properties must judge the kit's algorithm as the catalog says, and the kit's properties
    the submission's algorithm. Each in a folder of its own, with only Handoff.tla beside it."""
    kit = (paths.SPECS / f"{rubric['spec']['reference']}.tla").read_text()
    yours = source.read_text(errors="replace")
    algo, props = yours.split(TRANSLATION_END, 1)
    kit_algo, kit_props = kit.split(TRANSLATION_END, 1)
    texts = {"your spec": yours,
             "your properties on the kit's algorithm": kit_algo + TRANSLATION_END + props,
             "the kit's properties on your algorithm": algo + TRANSLATION_END + kit_props}
    folders = {}
    for i, (label, text) in enumerate(texts.items()):
        folder = work / f"tlc-{i}"
        folder.mkdir()
        (folder / source.name).write_text(text)
        shutil.copyfile(paths.SPECS / "Handoff.tla", folder / "Handoff.tla")  # the abstract spec is the kit's
        folders[label] = folder / source.name
    return folders


def _score_tlc(rubric: dict, g: Grade, source: Path, jail: _Jail) -> None:
    """Each `tlc` test names a catalog variant; the submitted spec is checked with that
    variant's cfg, and so are its properties on the kit's algorithm and the kit's properties on
    its algorithm. A test scores when all three give the catalog's verdict (the very property
    it names, not any failure) — but a catch counts only if every correct design passes (a spec
    that fails everything catches nothing), and a pass only if some bug is caught (a spec that
    checks nothing passes all)."""
    cat = catalog.load()
    tests = _tests_of(rubric, g, "tlc")
    problem = _spec_problem(source, rubric)
    if problem:
        for _, result in tests:
            result.output = "Not graded: " + problem
        return
    specs = _spec_variants(source, rubric, jail.work)
    verdicts, crossed = {}, {}
    jobs = [(cat.variant(spec["variant"]), label, path) for spec, _ in tests for label, path in specs.items()]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # one TLC per core
        done = list(pool.map(lambda job: _tlc_verdict(job[0], job[2], jail), jobs))
    for (variant, label, _), run in zip(jobs, done):
        if label == "your spec":
            verdicts[variant.name] = run
        else:
            crossed.setdefault(variant.name, {})[label] = run
    expected = {name: cat.variant(name).expected("tlc") for name in verdicts}
    agrees = {n: all(v[0] == expected[n] for v in crossed[n].values()) for n in verdicts}
    correct_pass = all(verdicts[n][0] == "pass" and agrees[n] for n in verdicts if cat.variant(n).correct)
    caught_any = any(expected[n] != "pass" and verdicts[n][0] == expected[n] and agrees[n] for n in verdicts)
    for spec, result in tests:
        name = spec["variant"]
        variant, (verdict, detail, lane) = cat.variant(name), verdicts[name]
        what = f"`{name}.cfg` ({variant.bug if not variant.correct else 'the correct design'})"
        disagree = [f"{label}: {v}" + (f" ({why.strip()[:300]})" if v == "error" else "")
                    for label, (v, why, _) in crossed[name].items() if v != expected[name]]
        cross = ("\n\nBut the catalog's verdict is `" + expected[name] + "`, and swapping halves with the kit's "
                 "spec gives: " + "; ".join(disagree) + ". Your properties must judge any algorithm as the "
                 "kit's do, and your algorithm must be judged by the kit's properties as the catalog says.")
        if verdict == "error":
            result.output = f"TLC could not check your spec with {what}:\n\n```text\n{detail}\n```"
        elif expected[name] == "pass" and verdict == "pass":
            if disagree:
                result.output = f"Your spec accepts {what}." + cross
            elif caught_any:
                result.score, result.output = result.max_score, f"Passed: your spec accepts {what}, as it should."
            else:
                result.output = (f"Your spec accepts {what}, but it catches none of the buggy variants: a spec "
                                 "that checks nothing accepts everything, so this pass earns nothing yet.")
        elif expected[name] == "pass":
            result.output = (f"Failed: your spec rejects {what}, which the catalog says is correct for "
                             f"exactly-once ({verdict}). {variant.why.get('tlc', '')} Read the trace below.")
        elif verdict == "pass":
            result.output = f"Not caught: your spec accepts {what}. Which property should fail, and in which step?"
        elif verdict != expected[name]:
            result.output = (f"Not caught as it should be: your spec reports {verdict} for {what}, but the bug "
                             f"breaks `{expected[name].partition(':')[2] or expected[name]}` — which property "
                             "should fail first, and does your spec let TLC reach that state?")
        elif disagree:
            result.output = f"Your spec reports {verdict} for {what}." + cross
        elif correct_pass:
            result.score = result.max_score
            result.output = f"Caught: {what} — TLC reports {verdict}, in your spec and crossed with the kit's."
        else:
            result.output = (f"Your spec rejects {what} ({verdict}), but it also rejects a correct design, so "
                             "the catch proves nothing yet. Fix the correct designs first.")
        if lane is not None:  # a caught bug's trace teaches too
            lane.title = f"your {source.name} with {name}.cfg under TLC"
            result.swimlane_md = lane.markdown()


def _tlc_verdict(variant, source: Path, jail: _Jail) -> tuple[str, str, object]:
    """(verdict, error text, swimlane) of TLC on the submitted spec with one catalogued cfg."""
    from types import SimpleNamespace

    # A folder of its own per run: the runs go in parallel, and TLC writes files beside the spec
    # (a violation's SPEC_TTrace_<seconds>.tla), which two runs in one folder can clash on.
    own = source.parent / f"run-{variant.name}"
    own.mkdir()
    for f in (source, source.parent / "Handoff.tla"):
        shutil.copyfile(f, own / f.name)
    source = own / source.name
    cfg = own / f"{variant.name}.cfg"
    shutil.copyfile(variant.cfg_file, cfg)
    meta, tmp = own / "tlc-meta", own / "tmp"
    meta.mkdir(parents=True, exist_ok=True)
    tmp.mkdir()
    # SANY copies the standard modules out of its jar into java.io.tmpdir under fixed names: runs
    # sharing one tmpdir race on Naturals.tla ("File does not exist", seen in CI), so each has its own.
    run = jail.run(["java", "-XX:+UseParallelGC", f"-Djava.io.tmpdir={tmp}", "-cp", str(toolchain.tlc_jar()), "tlc2.TLC", "-tool",
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

def _score_mutants(rubric: dict, g: Grade, tmp: Path, jail: _Jail) -> None:
    """Each `mutants` test names one of the kit's handoffs; the submitted JUnit tests run
    against it (through the lab's `Subject`). A buggy one scores when the tests fail it (a
    kill) and only if they pass every correct one; a correct one scores when the tests pass
    it, and only if they kill at least one mutant."""
    cat = catalog.load()
    tests = _tests_of(rubric, g, "mutants")
    cp = f"{tmp / 'classes'}:{tmp / 'kit-classes'}:{javabuild.classpath('checks')}"
    outcome = {}
    # A fresh JVM, a fresh temporary folder and a secret order for every handoff: a suite that
    # counts its runs (to fail "the third one") has nothing to count with.
    order = [spec["handoff"] for spec, _ in tests]
    secrets.SystemRandom().shuffle(order)
    for i, name in enumerate(order):
        run_tmp = jail.work / f"run-{i}"
        run_tmp.mkdir()
        run, cases = _junit(jail, cp, tmp / "classes", tmp / f"mutants-{i}",
                            (f"-Dhandofflab.subject={name}", f"-Djava.io.tmpdir={run_tmp}"))
        failures = [f"{method}: {message}" for method, ok, message in cases if not ok]
        if run.timed_out:
            outcome[name] = ("failed", f"your tests ran past {TEST_SECONDS} s")
        elif not cases:
            outcome[name] = ("none", "no test ran: annotate your test methods with @Test")
        else:
            outcome[name] = ("failed" if failures else "passed", "\n".join(failures)[:2000])
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


# -- a server lab: the submitted handoff in the kit's pre-threaded server, under load ----------

def _score_server(rubric: dict, g: Grade, tmp: Path, jail: _Jail) -> None:
    """Runs the papers' experiment (ServerBench: real TCP on 127.0.0.1, the load client) on the
    kit's PreThreadedServer with the submitted handoff, and with the kit's own handoff for the
    same design, run by run in turn on the same load. `exactly-once`: every run of the submitted
    handoff answered each request once and the server drained; `efficiency`: its median
    efficiency (Little's-law bound / time) at least `target` times the kit's, measured side by
    side, so that a busy grading machine slows both alike; counted only when exactly-once holds."""
    x = rubric["server"]
    tests = _tests_of(rubric, g, "server")
    if any(r.score < r.max_score for _, r in _tests_of(rubric, g, "junit")):
        for _, result in tests:  # a handoff that fails one thread would hang 2000 clients
            result.output = "Not run: the public test must pass first."
        return
    csv_out = tmp / "server-runs.csv"
    shape = f"{x['t_r']}:{x['workers']}:{x['slots']}"
    fill = f"{x['t_r']}:{x['fill_workers']}:{x['fill_slots']}:{x['fill_requests']}"
    # A lost request must read as lost within the budget: a client waits at most REPLY_MS for a reply.
    run = jail.run(["java", f"-Dhandofflab.reply.ms={SERVER_REPLY_MS}", "-Dhandofflab.stop.on.failure=true", "-cp",
                    f"{tmp / 'classes'}:{javabuild.classpath('servers')}",
                    "handofflab.servers.ServerBench", str(csv_out), str(x["runs"]), str(x["children"]),
                    str(x["requests"]), f"{x['design']}@{rubric['class']}:{shape}", f"{x['design']}:{shape}",
                    f"{x['design']}@{rubric['class']}:{fill}"],
                   timeout=SERVER_SECONDS)
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
           f"Only {len(yours)} of {2 * int(x['runs'])} runs finished.\n\n" + _ended_early("the server", run))
    if run.timed_out and not failed:
        # A hang cannot hold the runs past the budget: a client counts a request with no reply
        # within SERVER_REPLY_MS as lost, and the first loss ends the benchmark. So this is load.
        for _, result in tests:
            result.pending = True
            result.output = (f"Not graded: the runs took longer than {SERVER_SECONDS} s, with every finished run "
                             f"exactly once (a hang would have shown as a request lost within "
                             f"{SERVER_REPLY_MS // 1000} s). The grading machine was too busy, or the handoff is "
                             "very slow: your instructor will regrade.\n\n" + table)
        return
    for spec, result in tests:
        if spec["check"] == "exactly-once":
            if once:
                result.score, result.output = result.max_score, "Passed: every request answered exactly once.\n\n" + table
            else:
                full = any(r.get("slots") == str(x["fill_slots"]) for r in failed)
                result.output = (why or "Failed: requests were lost, duplicated or invented, or the server did not "
                                 "drain (the status column says which)." + (
                                     f" It failed on the load that fills the ring: {x['fill_workers']} workers for "
                                     f"{x['children']} clients and {x['fill_slots']} slots, so the acceptor meets a "
                                     "full ring and the ring wraps every few connections. Does put wait while the "
                                     "ring is full, and does every index wrap?" if full else "")) + "\n\n" + table
        elif spec["check"] == "efficiency":
            target = float(spec["target"])
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
                                 "What does a thread that cannot go on do: wait to be woken, or spin? (hint 2)\n\n"
                                 + table)
        else:
            raise LabError(f"labs/{rubric['lab']}/rubric.toml: unknown server check '{spec['check']}'",
                           "checks are exactly-once and efficiency")


def _median(values) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0


# -- repeatability ---------------------------------------------------------------------

def reruns(lab: str, submission: Path, runs: int, out_dir: Path | None = None,
           allow_weak_isolation: bool = False) -> dict:
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
            g = grade(lab, submission, out_dir / "last", allow_weak_isolation=allow_weak_isolation)
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


def batch_jobs() -> int:
    """Gradings at once by default: one per two cores (a checker keeps two threads busy, and a
    grading that shares its cores finishes later, not differently: budgets are retried, then
    pending), at most 4, and no more than the memory available holds at one jail's cap each."""
    cores = os.cpu_count() or 2
    try:
        meminfo = Path("/proc/meminfo").read_text()
        available = int(re.search(r"^MemAvailable:\s+(\d+) kB", meminfo, re.M)[1]) * 1024
    except (OSError, TypeError):
        available = sandbox.MEMORY_TOTAL  # unknown: as if one jail's worth
    return max(1, min(4, cores // 2, available // sandbox.MEMORY_TOTAL))


def grade_batch(lab: str, folder: Path, out_dir: Path | None = None, jobs: int | None = None,
                allow_weak_isolation: bool = False) -> Path:
    """Grades every submission in `folder`, `jobs` at a time, each hidden from the others;
    writes out_dir/NAME/{results.json,report.md} and out_dir/gradebook.csv. A submission that
    breaks the grader itself is a row with its error, never the end of the batch."""

    from handofflab.console import ok, progress, warn

    rubric = load_rubric(lab)
    if sandbox.ISOLATION != "full" and not allow_weak_isolation:  # once, not as a row per student
        raise WeakIsolation(f"this host cannot isolate submitted code: {sandbox.ISOLATION}",
                            "grade as root on a host that allows namespaces, or pass --allow-weak-isolation")
    folder = folder.resolve()
    subs = submissions_in(folder)
    out_dir = (out_dir or paths.RESULTS / "grading" / lab / f"batch-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = jobs or batch_jobs()
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
            g = grade(lab, sub, out_dir / sub.stem, hide=(folder,), allow_weak_isolation=allow_weak_isolation)
            row.update(score=g.score, max_score=g.max_score, seconds=round(g.seconds, 1),
                       problem=("PENDING, regrade: the machine was too busy. " if g.pending else "") + g.problem[:200])
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
