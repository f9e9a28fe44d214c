"""The grading layer: sample submissions get the marks they deserve, with
feedback that teaches, in Gradescope's results.json format."""
import os
import zipfile
from pathlib import Path

import pytest

import grader
from handofflab.ground import paths
from handofflab.commands import verify
from handofflab.ground.console import LabError

SAMPLES = Path(__file__).parent / "submissions" / "buffer"


@pytest.fixture
def grade(tmp_path, gradescope_results):
    """Grades one buffer submission: (the grading, its results.json held to Gradescope's schema, its report)."""
    def graded(submission):
        g = grader.grade("buffer", submission, tmp_path / "out")
        results = gradescope_results(tmp_path / "out")
        assert results["score"] == g.score and results["max_score"] == 10
        return g, results, (tmp_path / "out" / "report.md").read_text()
    return graded


def scores(g):
    return [t.score for t in g.tests]


@pytest.mark.full("a whole grading of one more buffer (the batch grades if_in_put in the default tier)", seconds=16)
def test_fixing_only_the_if_leaves_the_lost_wakeup(grade):
    # the one file the handout asks for, given alone (before: refused, "neither a folder nor a zip")
    g, _, report = grade(SAMPLES / "notify_only" / "StudentBuffer.java")
    assert scores(g) == verify.sample_marks()["buffer"]["notify_only"], g.report()  # trace: what it did before the hang is allowed
    assert "lost wake-up" in report and "WAITING" in report


def test_code_that_does_not_compile_gets_zero_and_the_compiler_message(grade):
    g, results, _ = grade(SAMPLES / "does_not_compile")
    assert results["score"] == 0 and "does not compile" in g.problem and "StudentBuffer.java:" in g.problem


def test_a_wrong_package_is_named(grade):
    g, results, _ = grade(SAMPLES / "wrong_package")
    assert results["score"] == 0 and "package handofflab.labs.buffer;" in g.problem


def test_a_zip_submission_is_graded_and_a_zip_slip_entry_refused(tmp_path):
    z = tmp_path / "sub.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.write(SAMPLES / "correct" / "StudentBuffer.java", "StudentBuffer.java")
        f.writestr("../../escaped.txt", "outside")
    # the public tests only: seconds, not a minute of checkers; other tests hold the checkers to their marks
    public = grader.load_rubric("buffer").public()
    g = grader.grade("buffer", z, tmp_path / "out", rubric=public)
    assert g.score == g.max_score == sum(t.points for t in public.tests), g.report()
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path.parent / "escaped.txt").exists()


def test_lab_grade_exits_non_zero_below_full_marks(tmp_path):
    """Before: `./lab grade` exited 0 whatever the score, so a student's script could not tell."""
    import subprocess
    weak = ["--allow-weak-isolation"] if os.environ.get("HANDOFFLAB_ISOLATION") == "weak" else []
    run = subprocess.run([str(paths.ROOT / "lab"), "grade", "buffer", str(SAMPLES / "does_not_compile"),
                          "--out", str(tmp_path / "out"), *weak], capture_output=True, text=True, timeout=600)
    assert run.returncode == 1 and "0 / 10" in run.stdout and "below full marks" in run.stdout + run.stderr, run.stdout
    # progress before the report (before: nothing for 12–31 s)
    assert run.stdout.index("compiling StudentBuffer.java") < run.stdout.index("# buffer: 0 / 10")


def test_lab_grade_says_what_it_runs_as_it_goes(tmp_path):
    said = []
    grader.grade("buffer", SAMPLES / "correct", tmp_path, rubric=grader.load_rubric("buffer").public(),
                 progress=said.append)
    assert said == ["compiling StudentBuffer.java",
                    "design: 1 test(s) — public: the lab's design: a monitor you wrote (wait() and no",
                    "junit: 2 test(s) — public: one thread sees a FIFO …"], said


@pytest.mark.full("a whole check-lab of the buffer lab in the kit (about 20 s); the default tier runs it on the same "
                  "starter in a student copy (test_term's students)", seconds=20)
def test_check_lab_runs_what_grades_the_student(tmp_path):
    """The student's loop runs every test of the rubric that is not withheld, the hidden checkers too: the starter's
    bugs are named by Lincheck before any submission, and a file that does not compile is named as such."""
    import subprocess
    weak = ["--allow-weak-isolation"] if os.environ.get("HANDOFFLAB_ISOLATION") == "weak" else []
    lab = lambda path: subprocess.run([str(paths.ROOT / "lab"), "check-lab", "buffer", str(path), *weak],  # noqa: E731
                                      capture_output=True, text=True, timeout=600)
    run = lab(paths.LABS / "buffer" / "starter" / "StudentBuffer.java")
    marks = verify.sample_marks()["buffer"]["starter"]
    tests = grader.load_rubric("buffer").tests
    assert not any(t.withheld for t in tests)  # the buffer lab's student runs every test
    assert run.returncode == 1 and f"{sum(marks):g} / {sum(t.points for t in tests):g} points" in run.stdout, run.stdout
    for mark, t in zip(marks, tests):
        assert f"{'pass' if mark == t.points else 'FAIL'} {t.name}" in run.stdout, run.stdout
    assert "under lincheck" in run.stdout and "| # |" in run.stdout, run.stdout  # the counterexample, as swimlanes
    run = lab(SAMPLES / "does_not_compile")
    assert run.returncode == 1 and f"0 / {sum(t.points for t in tests):g} points" in run.stdout \
        and "does not compile" in run.stdout, run.stdout


def test_an_unknown_lab_is_a_clear_error(tmp_path):
    with pytest.raises(LabError) as e:
        grader.grade("nosuchlab", SAMPLES / "correct", tmp_path)
    assert "buffer" in e.value.fix


def _bad_submission(kind: str, folder: Path) -> Path:
    """What students hand in by mistake, each a submission the grader must score 0 with the cause named."""
    source = (SAMPLES / "correct" / "StudentBuffer.java").read_bytes()
    if kind == "not_a_zip":
        (folder / "sub.zip").write_bytes(b"x")
        return folder / "sub.zip"
    if kind == "truncated_zip":
        with zipfile.ZipFile(folder / "whole.zip", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("StudentBuffer.java", source * 20)
        whole = (folder / "whole.zip").read_bytes()
        (folder / "sub.zip").write_bytes(whole[:len(whole) // 2] + whole[-22:])  # entries cut, the directory kept
        return folder / "sub.zip"
    if kind == "empty_zip":
        zipfile.ZipFile(folder / "sub.zip", "w").close()
        return folder / "sub.zip"
    if kind == "zip_of_a_zip":
        with zipfile.ZipFile(folder / "inner.zip", "w") as z:
            z.writestr("StudentBuffer.java", source)
        with zipfile.ZipFile(folder / "sub.zip", "w") as z:
            z.write(folder / "inner.zip", "inner.zip")
        return folder / "sub.zip"
    if kind == "wrong_name":
        (folder / "sub").mkdir()
        (folder / "sub" / "MyBuffer.java").write_bytes(source)
        return folder / "sub"
    if kind == "not_utf8":
        (folder / "sub").mkdir()
        (folder / "sub" / "StudentBuffer.java").write_bytes(source.replace(b"// guarded by this", b"// gard\xe9 par this", 1)
                                                             .replace(b"{", b"{ // \xff\xfe", 1))
        return folder / "sub"
    (folder / "notes.pdf").write_bytes(b"%PDF-1.4")
    return folder / "notes.pdf"


@pytest.mark.parametrize("kind, named", [
    ("not_a_zip", "is named .zip but is not a zip file"),
    ("truncated_zip", "cannot be read"),
    ("empty_zip", "It is empty."),
    ("zip_of_a_zip", "a zip inside the zip"),
    ("wrong_name", "It holds `MyBuffer.java`"),
    ("not_utf8", "does not compile"),
    ("a_pdf", "neither a folder, a zip file nor a .java or .tla file"),
])
def test_a_bad_submission_is_the_students_zero_never_a_grader_failure(tmp_path, kind, named):
    """A corrupt, empty or nested zip, a wrong file name, a file that is not UTF-8, a PDF: each gets 0 and a
    message naming the problem, never "the grader itself failed" (exit 3) nor a traceback."""
    g = grader.grade("buffer", _bad_submission(kind, tmp_path), tmp_path / "out")
    assert g.score == 0 and not g.grader_error and not g.pending, g.report()
    assert named in g.problem, g.problem
    assert all(t.output.startswith("Not run") for t in g.tests)


def test_a_timed_wait_is_checked_as_a_plain_wait_and_still_judged(tmp_path):
    """Lincheck's model checker lets wait(ms) return at any moment: a correct `while (…) wait(100)` read as a
    loop that never ends (a false rejection; the sample timed_wait now gets full marks). The copy it checks
    waits untimed, which hides no bug: the starter's `if` with timed waits is still caught, and told why."""
    starter = (paths.LABS / "buffer" / "starter" / "StudentBuffer.java").read_text()
    assert starter.count("wait();") == 2
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "StudentBuffer.java").write_text(starter.replace("wait();", "wait(50);"))
    rubric = {**grader.rubric.data("buffer"), "test": [t for t in grader.rubric.data("buffer")["test"]
                                                       if t.get("checker") == "lincheck"]}
    g = grader.grade("buffer", tmp_path / "sub", tmp_path / "out", rubric=rubric)
    assert g.tests[0].score == 0 and not g.tests[0].pending, g.report()
    assert "Lincheck checked it with plain `wait()`" in g.tests[0].output
