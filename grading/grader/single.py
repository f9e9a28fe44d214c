"""Grading one submission: unpack it, build it, and let each kind of test score its tests in
the order they need; whatever happens, results.json is valid and says how it was graded."""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from grader import jail as jail_mod
from grader import kinds
from grader import rubric as rubric_mod
from grader import submission as submission_mod
from grader.context import Context
from grader.jail import Jail
from grader.results import Grade, TestResult
from grader.rubric import Rubric
from handofflab.java import javabuild
from handofflab.ground import paths, toolchain
from handofflab.ground.console import LabError


class WeakIsolation(LabError):
    """The host cannot isolate submitted code fully and the instructor did not allow less."""


def _kit_readable_by_the_jail(rubric: Rubric) -> None:
    """Each grading's runs are a user of their own: a kit they cannot read would grade every submission as one that
    'does not compile'. Said before grading, by name. A spec lab's runs read TLC and the specs, and build no Java."""
    reads = javabuild.jail_reads() if rubric.file.endswith(".java") else [toolchain.tlc_jar(), paths.SPECS]
    private = jail_mod.unreadable(reads)
    if private:
        raise LabError("the grader's jail runs each submission as a user of its own, who cannot read these files "
                       "of the kit:\n  " + "\n  ".join(private), jail_mod.PRIVATE_KIT_FIX)


def grade(lab: str, submission: Path, out_dir: Path | None = None, hide: tuple[Path, ...] = (),
          rubric: dict | Rubric | None = None, allow_weak_isolation: bool = False,
          progress=None, results_format: str = "gradescope") -> Grade:
    """Grades one submission. Its code sees neither the hidden tests (grading/), nor the kit's
    history (.git), nor other grading results, nor where it came from, nor anything in `hide`
    (grade-batch: the other submissions). `rubric`: instead of the lab's own (the hostile suite
    grades with a lighter one). Whatever happens, out_dir/results.json is valid and says at
    which isolation level the submission was graded; a failure of the grader itself is marked.
    `progress(text)`, if given, hears what the grader starts (`./lab grade` shows it). `results_format`:
    results.json as Gradescope reads it, or as PrairieLearn's external grader writes it ("prairielearn")."""
    try:
        rubric = (rubric_mod.load(lab) if rubric is None else rubric if isinstance(rubric, Rubric)
                  else rubric_mod.parse(rubric, "the rubric given"))
    except rubric_mod.RubricError as e:  # the instructor's slip: a grader error, never a student's lost marks
        return _rubric_error(lab, submission, out_dir, e, results_format)
    submission = submission.resolve()
    if not submission.exists():
        raise LabError(f"submission not found: {submission}", "pass a folder, a .zip, or the one file the lab asks for")
    if jail_mod.ISOLATION != "full" and not allow_weak_isolation:
        raise WeakIsolation(f"this host cannot isolate submitted code: {jail_mod.ISOLATION}",
                            "grade as root on a host that allows namespaces (CI, a grading server), or pass "
                            "--allow-weak-isolation to grade anyway; every report will then say so")
    if jail_mod.ISOLATION == "full":
        _kit_readable_by_the_jail(rubric)
    out_dir = out_dir or paths.RESULTS / "grading" / lab / submission.stem
    g = Grade(lab, str(submission), isolation=jail_mod.ISOLATION)
    g.tests = [TestResult(t.name, t.points, hidden=t.hidden) for t in rubric.tests]
    start = time.monotonic()
    try:
        _grade_into(g, rubric, submission, hide, progress or (lambda text: None))
    except Exception as e:  # the grader's own failure: still a valid results.json, marked as such
        g.grader_error = f"{type(e).__name__}: {getattr(e, 'problem', e)}"
        g.problem = ("The grader itself failed, not your code; nothing was scored. Please tell your instructor "
                     f"(`{g.grader_error[:300]}`).")
        for t in g.tests:
            t.score, t.output = 0.0, "Not graded: the grader failed (see above)."
    g.seconds = time.monotonic() - start
    out_dir.mkdir(parents=True, exist_ok=True)
    results = g.prairielearn_json() if results_format == "prairielearn" else g.results_json()
    (out_dir / "results.json").write_text(json.dumps(results, indent=2))
    (out_dir / "report.md").write_text(g.report())
    return g


def _rubric_error(lab: str, submission: Path, out_dir: Path | None, e: LabError, results_format: str) -> Grade:
    """A grading that could not start because the lab's rubric is wrong: results.json says so (grader_error), with
    no test scored, so that no platform shows a student a mark for it."""
    g = Grade(lab, str(submission), isolation=jail_mod.ISOLATION)
    g.grader_error = f"RubricError: {e.problem}" + (f" (fix: {e.fix})" if e.fix else "")
    g.problem = ("The grader itself failed, not your code: the lab's rubric is wrong, so nothing was scored. Please "
                 f"tell your instructor (`{g.grader_error[:400]}`).")
    out_dir = out_dir or paths.RESULTS / "grading" / lab / submission.resolve().stem
    out_dir.mkdir(parents=True, exist_ok=True)
    results = g.prairielearn_json() if results_format == "prairielearn" else g.results_json()
    (out_dir / "results.json").write_text(json.dumps(results, indent=2))
    (out_dir / "report.md").write_text(g.report())
    return g


def _grade_into(g: Grade, rubric: Rubric, submission: Path, hide: tuple[Path, ...], progress) -> None:
    with tempfile.TemporaryDirectory(prefix=f"grade-{g.lab}-") as tmp:
        work = Path(tmp) / "submission"
        work.mkdir()
        try:
            refused = submission_mod.unpack(submission, work)
        except submission_mod.Refused as e:
            g.problem = f"The submission was not unpacked: {e}. Submit `{rubric.file}` (alone, or in a folder or zip)."
            for t in g.tests:
                t.output = "Not run: the submission could not be unpacked (see above)."
            return
        source, problem = submission_mod.find_source(work, rubric)
        jail = Jail(Path(tmp), (paths.ROOT / "grading", paths.ROOT / ".git", paths.RESULTS,
                                 submission if submission.is_dir() else submission.parent, *hide))
        if source and not problem and source.suffix == ".tla":
            # alone in a folder of its own: nothing the submission brings (a module of the same name
            # as a standard one, a class TLC would load as an override) lies beside it
            alone = Path(tmp) / "spec" / source.name
            alone.parent.mkdir()
            shutil.copyfile(source, alone)
            # as submitted, before PlusCal's translation rewrites it: TLC's line numbers are mapped back
            shutil.copyfile(source, Path(tmp) / f"{source.name}.submitted")
            source = alone
        if source and not problem:
            progress(f"{'translating' if source.suffix == '.tla' else 'compiling'} {source.name}")
            problem = (submission_mod.translate(source, jail) if source.suffix == ".tla"
                       else submission_mod.compile_java(source, Path(tmp) / "classes", jail, rubric))
        if problem:
            g.problem = problem + (f"\n\nIgnored: {', '.join(refused)}" if refused else "")
            for t in g.tests:
                t.output = "Not run: the submission could not be built (see above)."
        else:
            ctx = Context(rubric, g, Path(tmp), jail, source)
            for kind in kinds.in_order(rubric.kinds):
                tests = [t.name for t in rubric.tests if t.kind == kind.KIND]
                progress(f"{kind.KIND}: {len(tests)} test(s) — {tests[0][:60]}" + (" …" if len(tests) > 1 else ""))
                kind.score(ctx)
