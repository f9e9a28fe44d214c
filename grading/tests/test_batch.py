"""grade-batch and export-gradescope: a folder of submissions becomes a gradebook with the same
marks `./lab grade` gives one by one, and the Gradescope zip runs this same grader. The batch's
reports also hold the buffer samples `correct` and `if_in_put` to their marks and feedback: each
sample is graded once per test run."""
import csv
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

import grader
from handofflab.ground import paths
from handofflab.commands import gradescope, verify
from handofflab.ground.console import LabError

# one worker, so the module's batch is graded once
pytestmark = pytest.mark.xdist_group("batch")

SAMPLES = Path(__file__).parent / "submissions" / "buffer"


@pytest.fixture(scope="module")
def gradebook(tmp_path_factory):
    subs = tmp_path_factory.mktemp("subs")
    # correct and if_in_put are graded here only: their own tests below read this batch's reports
    for name in ("correct", "if_in_put", "does_not_compile"):
        shutil.copytree(SAMPLES / name, subs / name)
    # a zip among folders (what it holds: test_grading), named like a folder: dup/ and dup.zip
    # are two submissions with two reports (before: one overwrote the other's)
    with zipfile.ZipFile(subs / "if_in_put.zip", "w") as z:
        z.write(SAMPLES / "does_not_compile" / "StudentBuffer.java", "StudentBuffer.java")
    (subs / "notes.txt").write_text("not a submission")
    out = tmp_path_factory.mktemp("batch")
    path = grader.grade_batch("buffer", subs, out, jobs=2)
    return out, {r["submission"]: r for r in csv.DictReader(path.open())}


def test_every_submission_gets_the_marks_it_gets_alone(gradebook):
    _, rows = gradebook
    assert {k: float(r["score"]) for k, r in rows.items()} == \
        {"correct": 10, "if_in_put": 8, "does_not_compile": 0, "if_in_put.zip": 0}
    stress = "hidden: stress under a watchdog (two workers; one to three slots, one or two acceptors; no lost wake-up)"
    assert rows["if_in_put"][stress] == "0.0" and "does not compile" in rows["does_not_compile"]["problem"]
    assert "does not compile" in rows["if_in_put.zip"]["problem"]
    assert rows["if_in_put.zip"]["id"] == rows["if_in_put"]["id"] == "if_in_put"  # the student, twice
    assert all("\n" not in cell for r in rows.values() for cell in r.values())  # one line per cell


def test_each_submission_has_its_results_json_and_report(gradebook, gradescope_results):
    out, _ = gradebook
    scores = {}
    for name in ("correct", "if_in_put", "does_not_compile", "if_in_put.zip"):
        results = gradescope_results(out / name)
        assert (out / name / "report.md").exists() and results["max_score"] == 10
        scores[name] = results["score"]
    assert scores == {"correct": 10, "if_in_put": 8, "does_not_compile": 0, "if_in_put.zip": 0}


def test_a_correct_submission_gets_full_marks(gradebook):
    out, _ = gradebook
    results = json.loads((out / "correct" / "results.json").read_text())
    assert [t["score"] for t in results["tests"]] == verify.sample_marks()["buffer"]["correct"], (out / "correct" / "report.md").read_text()


def test_if_in_put_passes_one_acceptor_and_fails_two(gradebook):
    """A slip that only two acceptors show: the stress check builds the state every run (both acceptors
    waiting on a full buffer, then one take), where its free trials missed it in 3 of 20 gradings
    (Lincheck's small scenarios never have two acceptors waiting at once)."""
    out, _ = gradebook
    results = json.loads((out / "if_in_put" / "results.json").read_text())
    report = (out / "if_in_put" / "report.md").read_text()
    assert [t["score"] for t in results["tests"]] == verify.sample_marks()["buffer"]["if_in_put"], report
    assert "two acceptors waiting on a full handoff" in report and "never accepted" in report
    assert "put(3) returned" in report, report  # the swimlane's ending: both puts returned after one take


def test_a_grader_failure_is_a_row_not_the_end_of_the_batch(tmp_path, monkeypatch):
    subs = tmp_path / "subs"
    for name in ("a", "b"):
        (subs / name).mkdir(parents=True)
    real = grader.single.grade
    monkeypatch.setattr(grader.single, "grade", lambda lab, sub, out, hide=(), **kw: (_ for _ in ()).throw(OSError("disk full"))
                        if sub.name == "a" else real(lab, SAMPLES / "wrong_package", out, hide))
    rows = list(csv.DictReader(grader.grade_batch("buffer", subs, tmp_path / "out", jobs=1).open()))
    assert rows[0]["problem"] == "GRADER ERROR: OSError: disk full" and rows[1]["score"] == "0.0"
    assert "package handofflab.labs.buffer;" in rows[1]["problem"]


def test_bad_batch_input_is_named(tmp_path):
    with pytest.raises(LabError, match="holds no submissions"):
        grader.grade_batch("buffer", tmp_path)
    with pytest.raises(LabError, match="is not a folder"):
        grader.grade_batch("buffer", tmp_path / "missing")
    with pytest.raises(LabError, match="no lab called"):
        grader.grade_batch("nosuchlab", tmp_path)


def test_the_gradescope_zip_runs_this_grader(tmp_path):
    # check=False: about the export itself; the check the command runs first (every sample graded) is test_rubric_check's
    z = gradescope.export("buffer", check=False)
    with zipfile.ZipFile(z) as f:
        names = set(f.namelist())
        assert {"setup.sh", "run_autograder", "kit/lab", "kit/labs/buffer/rubric.toml"} <= names
        assert not any(n.startswith(("kit/.venv", "kit/results", "kit/java/handoffs/target")) for n in names)
        # no hidden tests, reference solutions or buggy samples for a student to find in the image
        assert not any(n.startswith("kit/grading/tests/") for n in names)
        setup = f.read("setup.sh").decode()
        # Gradescope's Ubuntu 22.04 has python3 3.10: the kit's 3.11 comes as python3.11, and the
        # container's isolation is checked at setup, not at the first submission
        assert "python3.11 python3.11-venv" in setup and "./lab grade-isolation" in setup
        for script in ("setup.sh", "run_autograder", "kit/lab"):
            assert (f.getinfo(script).external_attr >> 16) & 0o111, f"{script} is not executable"
        # unzip restores these modes, and the grader's jail reads the kit as another uid: a public test stored
        # 0600 once failed to compile for every submission (and setup.sh's own check of the grader)
        private = [i.filename for i in f.infolist() if (i.external_attr >> 16) & (0o555 if i.is_dir() else 0o444)
                   != (0o555 if i.is_dir() else 0o444)]
        assert not private, f"stored unreadable by others: {private[:5]}"
        f.extractall(tmp_path / "source")
    for script in ("setup.sh", "run_autograder"):
        assert subprocess.run(["bash", "-n", str(tmp_path / "source" / script)]).returncode == 0
    # Gradescope's layout, in a temporary root, with this checkout's (already built) kit; a
    # submission that fails fast (the full grading is tested above) shows the wiring:
    shutil.copytree(SAMPLES / "wrong_package", tmp_path / "submission")
    env = {**os.environ, "AUTOGRADER_ROOT": str(tmp_path), "HANDOFFLAB_KIT": str(paths.ROOT)}
    run = subprocess.run(["bash", str(tmp_path / "source" / "run_autograder")], env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["max_score"] == 10 and "package handofflab.labs.buffer;" in results["output"]


def test_batch_parallelism_follows_the_cores_and_the_memory(monkeypatch):
    monkeypatch.setattr(grader.batch.os, "cpu_count", lambda: 2)
    assert grader.batch_jobs() == 1           # a checker keeps both cores busy
    monkeypatch.setattr(grader.batch.os, "cpu_count", lambda: 64)
    jobs = grader.batch_jobs()
    assert 1 <= jobs <= 4
    monkeypatch.setattr(grader.budgets, "MEMORY_TOTAL", 10 ** 15)  # a jail's cap above the memory there is
    assert grader.batch_jobs() == 1


@pytest.mark.full("a Gradescope zip's grading of a lab the default tier's buffer walk does not reach; the full tier "
                  "walks every lab through its zip (test_term)", seconds=12)
def test_the_database_labs_gradescope_autograder_gives_the_known_marks(tmp_path):
    """The newest lab, end to end on the instructor's side: its Gradescope zip, run in Gradescope's layout with this
    checkout's built kit, gives a sample its expected marks. test_lab_database.py's batch gives the samples the
    same marks with grade-batch (the default tier's batch grades others), so Gradescope and the gradebook agree
    without grading a sample twice in a run of the default tier."""
    samples = paths.GRADING / "tests" / "submissions" / "database"
    expected = verify.sample_marks()["database"]
    root = tmp_path / "autograder"
    with zipfile.ZipFile(gradescope.export("database", check=False)) as z:
        assert not any(n.startswith("kit/grading/tests/") for n in z.namelist())
        z.extractall(root / "source")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "HANDOFFLAB_KIT": str(paths.ROOT)}
    for name in ("one_lock",):
        shutil.rmtree(root / "submission", ignore_errors=True)
        shutil.rmtree(root / "results", ignore_errors=True)
        shutil.copytree(samples / name, root / "submission")
        run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True,
                             text=True, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
        results = json.loads((root / "results" / "results.json").read_text())
        assert [t["score"] for t in results["tests"]] == expected[name], (name, results["output"])
        assert results["score"] == sum(expected[name]), name
