"""export-prairielearn: a PrairieLearn question whose external grader is this grader. There is no Docker engine
here, so the image is not built; its Dockerfile's steps are run as far as this machine can run them: the
exported image folder laid out where the image holds it (HANDOFFLAB_HOME), its check-grader run as the build's
last step runs it, then its entrypoint on submissions copied into a root laid out as PrairieLearn lays /grade
(PL_GRADE_ROOT). Every result is held to PrairieLearn's format and to expected.toml's marks. The default tier
walks the buffer lab with this checkout's built kit; the full tier builds the buffer image's kit from the
registries (its .venv, java/) and grades the buffer's reference, a buggy and a hostile sample through it, and
grades every other lab's buggy and hostile samples through its entrypoint (its starter and reference go through
Gradescope's scripts in test_term: each sample once per lab)."""
import json
import os
import re
import shutil
import subprocess
from contextlib import nullcontext
from pathlib import Path

import pytest

import grader
from handofflab.ground import paths
from handofflab.ground.console import LabError
from handofflab.commands import prairielearn, release, verify
from handofflab.suite import turns

pytestmark = pytest.mark.xdist_group("prairielearn")  # one worker: an export rewrites results/prairielearn/

SUBMISSIONS = paths.GRADING / "tests" / "submissions"


def _pl_results(root: Path) -> dict:
    """results.json held to PrairieLearn's external-grading format."""
    results = json.loads((root / "results" / "results.json").read_text())
    assert isinstance(results["gradable"], bool) and isinstance(results["tests"], list)
    if results["gradable"]:
        assert 0.0 <= results["score"] <= 1.0
    else:
        assert "score" not in results and "Not graded" in results["message"]
    for t in results["tests"]:
        assert {"name", "points", "max_points", "output"} <= t.keys() and 0 <= t["points"] <= t["max_points"]
    assert len(json.dumps(results)) < 1_000_000  # PrairieLearn's limit on the file
    return results


def _grade(entrypoint: Path, root: Path, files: dict[str, str], kit: Path) -> dict:
    """One submission through the entrypoint, as PrairieLearn runs it: /grade/student in, /grade/results out."""
    shutil.rmtree(root, ignore_errors=True)
    (root / "student").mkdir(parents=True)
    for name, text in files.items():
        (root / "student" / name).write_text(text)
    env = {**os.environ, "PL_GRADE_ROOT": str(root), "HANDOFFLAB_KIT": str(kit)}
    run = subprocess.run(["bash", str(entrypoint)], env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (root / "job.log").write_text(run.stdout + run.stderr)  # the grading job's log: PrairieLearn shows it to staff
    return _pl_results(root)


PENDING = " (not graded: pending a regrade)"  # what PrairieLearn's results say of a test the machine was too busy to judge


def _graded(entrypoint: Path, root: Path, files: dict[str, str], kit: Path, marks: list[float]) -> dict:
    """_grade, graded again while a test is pending (PrairieLearn's "submit again"), at most verify.REGRADES times in
    all, as an instructor and verify-verdicts would. Still pending then, it is no verdict on the submission: the
    tests it did judge must have their expected marks, and the test is skipped saying so, never passed or failed on
    the machine's load (a full-tier run beside jcstress's tests once left the server lab's spinning sample pending)."""
    for attempt in range(verify.REGRADES):
        with turns.quiet() if attempt else nullcontext():  # a regrade waits for the suite's other tests to finish
            results = _grade(entrypoint, root, files, kit)
        pending = {i for i, t in enumerate(results["tests"]) if t["name"].endswith(PENDING)}
        if not pending:
            return results
    assert [m for i, m in enumerate(_marks(results)) if i not in pending] == \
        [m for i, m in enumerate(marks) if i not in pending], results["message"]
    pytest.skip(f"not graded {verify.REGRADES} times in a row, the machine too busy: {results['message']}")


def _hostile(lab: str, sample_text) -> dict[str, str]:
    """The starter with an exit at class load, and output enough to flood a log (Java); a spec that cannot parse (TLA+)."""
    file, text = sample_text(lab, "starter")
    if file.endswith(".tla"):
        return {file: text.replace("====", "THIS IS NOT TLA+ ====", 1)}
    cls = re.search(r"\n(public )?(final )?class \w+[^{]*\{", text)
    flood = 'static { for (int i = 0; i < 200_000; i++) System.out.println("x".repeat(100)); System.exit(0); }'
    return {file: text[:cls.end()] + "\n    " + flood + text[cls.end():]}


def _marks(results: dict) -> list[float]:
    return [t["points"] for t in results["tests"]]


@pytest.mark.full("the buffer lab's PrairieLearn question built and graded through its entrypoint (about 40 s); the "
                  "default tier builds Gradescope's zip and runs its grader (test_batch)", seconds=40)
def test_the_buffer_question_and_its_grader_image(tmp_path, sample_text):
    """The export's question is PrairieLearn's shape, its image recipe is this kit's, and its entrypoint, run with this
    checkout's built kit, grades a buggy sample with its expected marks and an unbuildable one as not gradable."""
    # check=False: about the export itself; the check the command runs first (every sample graded) is test_rubric_check's
    out = prairielearn.export("buffer", check=False)
    question, image = out / "question", out / "image"
    info = json.loads((question / "info.json").read_text())
    assert info["type"] == "v3" and info["gradingMethod"] == "External" and re.fullmatch(r"[0-9a-f-]{36}", info["uuid"])
    options = info["externalGradingOptions"]
    assert options["enabled"] and options["entrypoint"] == "/opt/handofflab/entrypoint" and options["timeout"] <= 600
    assert options["image"] in (image / "Dockerfile").read_text()
    html = (question / "question.html").read_text()
    assert '<pl-file-editor file-name="StudentBuffer.java"' in html and "<pl-external-grader-results>" in html
    assert "<h1>Lab: Fix the buffer</h1>" in html and "<table>" in html  # the handout, as HTML
    assert (question / "StudentBuffer.java").read_text() == (paths.LABS / "buffer/starter/StudentBuffer.java").read_text()
    dockerfile = (image / "Dockerfile").read_text()
    assert "FROM debian:bookworm" in dockerfile and 'ENTRYPOINT ["/opt/handofflab/entrypoint"]' in dockerfile
    assert "/opt/handofflab/check-grader" in dockerfile
    assert (image / "kit" / "lab").exists() and not (image / "kit" / "grading" / "tests").exists()
    assert json.loads((image / "known-marks.json").read_text())["marks"] == verify.sample_marks()["buffer"]["starter"]
    for script in ("entrypoint", "check-grader"):
        assert os.access(image / script, os.X_OK) and subprocess.run(["bash", "-n", str(image / script)]).returncode == 0
    expected = verify.sample_marks()["buffer"]
    buggy = _graded(image / "entrypoint", tmp_path / "grade", dict([sample_text("buffer", "drops_when_full")]), paths.ROOT,
                    expected["drops_when_full"])
    assert buggy["gradable"] and _marks(buggy) == expected["drops_when_full"], buggy["message"]
    assert buggy["score"] == pytest.approx(sum(expected["drops_when_full"]) / 10)
    hidden = [t for t, r in zip(buggy["tests"], grader.load_rubric("buffer").tests) if r.hidden]
    assert hidden and all("feedback is your instructor's" in t["output"] for t in hidden)  # shown at once: no feedback
    # ... which the job's log keeps for the course's staff: the whole report, each hidden test's feedback included
    log = (tmp_path / "grade" / "job.log").read_text()
    assert "for the course's staff (hidden tests' feedback included)" in log and "never reached a worker" in log, log[-3000:]
    assert "never reached a worker" not in json.dumps(buggy)
    broken = _grade(image / "entrypoint", tmp_path / "grade", dict([sample_text("buffer", "wrong_package")]), paths.ROOT)
    assert not broken["gradable"] and "package handofflab.labs.buffer;" in " ".join(broken["format_errors"])


def test_a_pending_grading_is_graded_again_and_never_judged_on_the_machines_load(monkeypatch):
    """The walks' rule: pending, then graded again in a quiet turn: the marks; pending three times: skipped with why,
    unless a test it did judge is off its marks, which fails."""
    def results(pending: bool) -> dict:
        return {"gradable": not pending, "message": "too busy", "tests": [
            {"name": "stress" + (PENDING if pending else ""), "points": 0 if pending else 2}, {"name": "put", "points": 1}]}
    answers = [results(True), results(False)]
    quiet = []  # the gradings made in a quiet turn (the suite's other tests waiting): each regrade, not the first
    monkeypatch.setitem(globals(), "_grade", lambda *a: (answers.pop(0), quiet.append(len(answers)))[0])
    monkeypatch.setattr(turns, "quiet", lambda: nullcontext(quiet.append("quiet")))
    assert _marks(_graded(Path(), Path(), {}, Path(), [2, 1])) == [2, 1] and not answers
    assert quiet == [1, "quiet", 0], quiet
    answers[:] = [results(True)] * verify.REGRADES
    with pytest.raises(pytest.skip.Exception):
        _graded(Path(), Path(), {}, Path(), [2, 1])
    answers[:] = [results(True)] * verify.REGRADES
    with pytest.raises(AssertionError):
        _graded(Path(), Path(), {}, Path(), [2, 0])


def test_a_grading_that_could_not_judge_is_not_gradable():
    """Pending (the machine too busy) and the grader's own failure: no score, no attempt counted, the reason said."""
    from grader import Grade, TestResult
    g = Grade("buffer", "x", tests=[TestResult("public: one", 2, 2), TestResult("hidden: stress", 2, pending=True,
                                                                                 hidden=True)])
    pl = g.prairielearn_json()
    assert not pl["gradable"] and "score" not in pl and "too busy" in pl["message"]
    assert "pending" in pl["tests"][1]["name"]
    g.tests[1].pending, g.grader_error, g.problem = False, "OSError: x", "The grader itself failed"
    assert not g.prairielearn_json()["gradable"] and "grader itself failed" in g.prairielearn_json()["message"]
    g.grader_error, g.problem = "", ""
    assert g.prairielearn_json()["gradable"] and g.prairielearn_json()["score"] == 0.5


def test_a_grader_that_cannot_start_still_writes_a_results_json(tmp_path, sample_text):
    """The entrypoint's own fallback: a kit that is not there still leaves a not-gradable result saying so."""
    out = prairielearn.export("buffer", check=False)
    results = _grade(out / "image" / "entrypoint", tmp_path / "grade", dict([sample_text("buffer", "correct")]), tmp_path / "no-kit")
    assert not results["gradable"] and "autograder itself failed" in results["message"] and results["tests"] == []


@pytest.fixture(scope="module")
def image_home(tmp_path_factory):
    """The buffer lab's image as its Dockerfile builds it, but for apt (this host has the packages): the exported image
    folder where the image holds it, and check-grader run as the build's last step, from no .venv and no java/ build."""
    out = prairielearn.export("buffer", check=False)
    home = tmp_path_factory.mktemp("opt") / "handofflab"
    shutil.copytree(out / "image", home, symlinks=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HANDOFFLAB_", "PYTEST", "VIRTUAL_ENV", "PYTHON"))}
    env |= {"HANDOFFLAB_HOME": str(home),
            "PATH": os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if ".venv" not in p)}
    built = subprocess.run(["bash", str(home / "check-grader")], env=env, capture_output=True, text=True, timeout=1800)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert "grader checked: labs/buffer/starter got its known marks" in built.stdout
    return home


@pytest.mark.full("check-grader builds the image's kit from the registries (.venv, java/), then three gradings", seconds=240)
def test_the_grader_image_built_by_its_own_check_grades_the_buffer_samples(image_home, tmp_path, sample_text):
    expected = verify.sample_marks()["buffer"]
    for name in ("correct", "if_in_put"):
        results = _graded(image_home / "entrypoint", tmp_path / "grade", dict([sample_text("buffer", name)]),
                          image_home / "kit", expected[name])
        assert results["gradable"] and _marks(results) == expected[name], (name, results["message"])
    hostile = _grade(image_home / "entrypoint", tmp_path / "grade", _hostile("buffer", sample_text), image_home / "kit")
    _no_full_marks(hostile)


def _no_full_marks(results: dict) -> None:
    """A hostile submission's result: valid, and either not gradable with the reason named, or short of full marks."""
    assert results["format_errors"] if not results["gradable"] else results["score"] < 1.0, results["message"]


@pytest.mark.full("a buggy and a hostile sample graded through the lab's entrypoint", seconds=120)
@pytest.mark.parametrize("lab", [lab for lab in release.labs() if lab != "buffer"])
def test_every_labs_question_grades_its_samples_through_the_entrypoint(lab, tmp_path, walk_samples, sample_text):
    """Each other lab's export, its entrypoint run with this checkout's built kit on the lab's buggy sample
    (expected.toml's marks) and a hostile one. Shared with the Gradescope walk of every lab (test_term), which grades
    the lab's starter (setup.sh) and reference (run_autograder): each sample is graded once per lab, by one platform's
    scripts, and both formats of one grading agree (test_both_platforms_formats_of_a_grading_agree)."""
    out = prairielearn.export(lab, check=False)
    assert subprocess.run(["bash", "-n", str(out / "image" / "check-grader")]).returncode == 0
    for name, marks in walk_samples(lab).items():
        if name == "correct":
            continue  # the reference: test_term's walk of the lab through Gradescope grades it
        results = _graded(out / "image" / "entrypoint", tmp_path / "grade", dict([sample_text(lab, name)]), paths.ROOT,
                          marks)
        assert results["gradable"] and _marks(results) == marks, (lab, name, results["message"])
    _no_full_marks(_grade(out / "image" / "entrypoint", tmp_path / "grade", _hostile(lab, sample_text), paths.ROOT))


def test_both_platforms_formats_of_a_grading_agree():
    """One grading, two results.json: the same marks test by test, the same total (as a fraction on PrairieLearn)."""
    from grader import Grade, TestResult
    g = Grade("buffer", "x", tests=[TestResult("a", 2, 2), TestResult("b", 2, 0.5, hidden=True), TestResult("c", 6, 3)])
    gs, pl = g.results_json(), g.prairielearn_json()
    assert [t["score"] for t in gs["tests"]] == [t["points"] for t in pl["tests"]]
    assert [t["max_score"] for t in gs["tests"]] == [t["max_points"] for t in pl["tests"]]
    assert pl["score"] == pytest.approx(gs["score"] / gs["max_score"]) and pl["gradable"]


def test_the_image_has_the_name_the_instructor_gives_and_a_smoke_test_to_try_it():
    """--image names the image info.json asks PrairieLearn to pull (an account the course can push to), and the
    export holds smoke-test: the starter graded by `docker run` as PrairieLearn runs it (no Docker here to run it)."""
    # check=False: about the export itself; the check the command runs first (every sample graded) is test_rubric_check's
    out = prairielearn.export("buffer", check=False, image_name="myaccount/handofflab-grader-buffer:term1")
    info = json.loads((out / "question" / "info.json").read_text())
    assert info["externalGradingOptions"]["image"] == "myaccount/handofflab-grader-buffer:term1"
    smoke = out / "image" / "smoke-test"
    assert os.access(smoke, os.X_OK) and subprocess.run(["bash", "-n", str(smoke)]).returncode == 0
    text = smoke.read_text()
    assert 'image="${1:-myaccount/handofflab-grader-buffer:term1}"' in text and "docker run --rm --network none" in text
    assert "known-marks.json" in text and "StudentBuffer.java" in text
    with pytest.raises(LabError) as bad:
        prairielearn.export("buffer", check=False, image_name="My Image")
    assert "is not a Docker image name" in bad.value.problem and "--image" in bad.value.fix
