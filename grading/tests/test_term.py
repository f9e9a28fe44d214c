"""A term, rehearsed end to end: the instructor releases a student copy with two labs; three students
work in it with only the commands their handouts give (copy the starter, check-lab, hint) and hand in
a zip each (one the starter as it is, one a buggy buffer, one a correct one); the instructor grades the
zips with grade-batch in the full kit, and again with the exported Gradescope autograder, built by its
own setup.sh from the zip alone, in a root laid out as Gradescope lays it (/autograder/source,
/autograder/submission, /autograder/results, given as AUTOGRADER_ROOT). Every mark agrees with
expected.toml. The leg is this host, not Gradescope's Ubuntu image: setup.sh installs its system
packages only when one is missing, and this host has them all, so apt is not exercised here; the kit
in the zip builds its own .venv and Java, and grades, exactly as on Gradescope. That leg, setup.sh
building a kit from the registries, is the full tier's; the default tier walks the term to the gradebook.
The full tier also walks every other lab through its own zip's setup.sh and run_autograder.

Also: in that copy every command line its handouts, hints, README and book name runs (its --help),
or the copy's book says at the top of the page that the command is the full kit's."""
import csv
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import grader
from handofflab.ground import paths
from handofflab.commands import copybook, gradescope, release, studentcopy, verify

pytestmark = pytest.mark.xdist_group("source-tree")  # release builds the book from the source tree

# who hands in what, for the buffer lab; cy's correct monitor keeps a deque, as students write it (the kit's
# own `correct` is test_batch's: one sample graded once in the default tier; `timed_wait` took twice as long)
STUDENTS = {"ada": "starter", "bo": "drops_when_full", "cy": "linked_list"}
# The default tier walks ada and bo (the starter and a bug, every hidden check's failure drawn); cy's correct deque, a
# third check-lab and grading (about 50 s of a 10-minute tier), is the full tier's, as is her Gradescope leg.
FULL_ONLY = {"cy"}


def walked(config) -> list[str]:
    """The students this run's tier walks through the term."""
    return [name for name in STUDENTS if name not in FULL_ONLY or config.getoption("--tier") != "default"]
SAMPLES = paths.GRADING / "tests" / "submissions" / "buffer"


@pytest.fixture(scope="module")
def copy(student_copy):
    """The suite's one student copy (conftest's), whose contents test_release judges."""
    return student_copy


def test_the_copy_holds_only_the_labs_it_was_made_for(copy):
    labs = tomllib.loads((copy / studentcopy.MARKER).read_text())["labs"]
    assert {"buffer", "pht"} <= set(labs) and not {"database", "dht", "mutants"} & set(labs)  # the term's, and three left out
    assert sorted(p.name for p in (copy / "labs").iterdir() if p.is_dir()) == sorted(labs)
    modules = re.findall(r"<module>([^<]+)</module>", (copy / "labs" / "pom.xml").read_text())
    assert modules[:3] == ["../java/handoffs", "../java/calendar", "../java/dht"] \
        and sorted(modules[3:]) == sorted(set(labs) - {"pipes-spec"})  # the spec lab is TLC's, no Maven module
    assert all((copy / "labs" / m / "pom.xml").exists() for m in modules)


def _command_lines(copy: Path) -> dict[tuple[str, str | None], str]:
    """Every `./lab COMMAND [SUB]` the copy's text names -> the first file naming it."""
    texts = [*copy.glob("labs/*/README.md"), copy / "README.md", *(copy / "book").rglob("*.html")]
    found = {}
    for f in texts:
        text = f.read_text(errors="replace")
        if f.suffix == ".html":  # as the reader sees it, the page's note included
            text = html.unescape(re.sub(r"<[^>]+>", "", text))
        for m in copybook.COMMAND.finditer(text):
            found.setdefault((m.group(1), m.group(2)), str(f.relative_to(copy)))
    return found


def test_every_command_the_copys_text_names_runs_there(copy, in_copy, tmp_path):
    """A handout, a hint, the copy's README or a chapter: each command line either runs in the copy
    (its --help answers) or its page says it is the full kit's, and the copy refuses it by name."""
    from handofflab.commands.cli import cli
    commands = {k: where for k, where in _command_lines(copy).items() if k[0] in cli.commands}
    assert ("check-lab", "buffer") in commands and ("hint", "pht") in commands and ("check", "specs") in commands
    book_only = set()
    for (command, sub), where in sorted(commands.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        runs = studentcopy.in_copy(command, sub)
        args = [command, sub, "--help"] if command == "check" and sub else [command, "--help"]
        run = in_copy(copy, *args, results=tmp_path)
        if runs:
            assert run.returncode == 0, f"{where} names `./lab {command} {sub or ''}`: {run.stdout}{run.stderr}"
            continue
        assert where.startswith("book/"), f"{where} tells a student to run `./lab {command}`, which the copy lacks"
        assert run.returncode == 2 and "not in this student copy" in run.stdout + run.stderr
        book_only.add(command)
    for page in (copy / "book").rglob("*.html"):
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text(errors="replace")))
        lacking = {m.group(1) for m in copybook.COMMAND.finditer(text) if m.group(1) in cli.commands
                   and not studentcopy.in_copy(m.group(1), m.group(2))}
        assert not lacking or "In a student copy these commands of this page are not there" in text, page
    assert {"bench", "serve"} <= book_only


def test_a_model_a_hint_names_runs_in_the_copy(copy, in_copy, tmp_path):
    run = in_copy(copy, "check", "specs", "NotifyBuffer", "--quiet", results=tmp_path)
    assert run.returncode == 0 and "as catalogued" in run.stdout, run.stdout + run.stderr
    run = in_copy(copy, "check", "java", results=tmp_path)
    assert run.returncode == 2 and "not in this student copy" in run.stdout + run.stderr


def test_doctor_in_a_copy_checks_what_the_copy_needs(copy, in_copy, tmp_path):
    run = in_copy(copy, "doctor", results=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "TLC" in run.stdout and "mdbook" not in run.stdout and "JPF" not in run.stdout


def _student(copy: Path, in_copy, name: str, work: str, results: Path) -> Path:
    """One student's path through the handout: copy the starter, do the work, check-lab, a hint, zip it."""
    home = copy / f"my-buffer-{name}"
    shutil.copytree(copy / "labs" / "buffer" / "starter", home)  # step 1: cp -r labs/buffer/starter my-buffer
    if work != "starter":
        shutil.copyfile(SAMPLES / work / "StudentBuffer.java", home / "StudentBuffer.java")
    checked = in_copy(copy, "check-lab", "buffer", home.name, results=results / name)
    tests = grader.load_rubric("buffer").tests
    marks = verify.sample_marks()["buffer"][work]
    got, most = sum(marks), sum(t.points for t in tests)
    assert checked.returncode == (0 if got == most else 1), checked.stdout + checked.stderr
    assert f"{got:g} / {most:g} points" in checked.stdout, checked.stdout  # the grader's marks, before submission
    for mark, t in zip(marks, tests):  # each check judged, by name, the hidden checkers too
        assert f"{'pass' if mark == t.points else 'FAIL'} {t.name}" in checked.stdout, checked.stdout
    assert "./lab grade" not in checked.stdout, checked.stdout  # the copy has no ./lab grade to point to
    if got < most and marks[2] == 0:  # a bug Lincheck finds: named before submission, its counterexample drawn
        assert "under lincheck" in checked.stdout and "| # |" in checked.stdout, checked.stdout
    hint = in_copy(copy, "hint", "buffer", results=results / name)
    assert hint.returncode == 0 and "Hint 1 of" in hint.stdout
    handed_in = results / "handed-in" / f"{name}.zip"
    handed_in.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(handed_in, "w") as z:
        z.write(home / "StudentBuffer.java", "StudentBuffer.java")
    shutil.rmtree(home)  # the copy is test_release's too: its leak scan must see the copy as released
    return handed_in


@pytest.fixture(scope="module")
def handed_in(copy, in_copy, tmp_path_factory):
    """Each student's zip, made by the first test that needs it: {student: zip}."""
    return {"folder": tmp_path_factory.mktemp("handed"), "zips": {}}


def _hand_in(handed_in, copy, in_copy, name: str) -> Path:
    if name not in handed_in["zips"]:
        handed_in["zips"][name] = _student(copy, in_copy, name, STUDENTS[name], handed_in["folder"])
    return handed_in["zips"][name]


@pytest.mark.parametrize("name", [pytest.param(name, marks=[pytest.mark.full(
    "the third student: a correct deque's check-lab (the default tier walks the starter and a bug)", seconds=50)]
    if name in FULL_ONLY else []) for name in STUDENTS])
def test_a_students_path_through_the_handout(handed_in, copy, in_copy, name):
    """Copy the starter, do the work, check-lab (its public marks), a hint, a zip: as the handout says."""
    assert _hand_in(handed_in, copy, in_copy, name).exists()


@pytest.fixture(scope="module")
def term(handed_in, copy, in_copy, request):
    """The students' zips and the instructor's gradebook: (zips, the gradebook's rows by zip name, the batch)."""
    zips = {name: _hand_in(handed_in, copy, in_copy, name) for name in walked(request.config)}
    batch = handed_in["folder"] / "batch"
    # two at a time, as an instructor's 4-core machine grades by default (batch_jobs); one at a time took 70 s here
    book = grader.grade_batch("buffer", zips["ada"].parent, batch, jobs=2)
    rows = {r["submission"]: r for r in csv.DictReader(book.open())}
    return zips, rows, batch


def test_a_term_from_release_to_the_gradebook(term):
    """Release, the students' zips (two in the default tier, three in the full), one batch, one gradebook: every
    mark the sample's, and no row for anyone who handed nothing in."""
    expected = verify.sample_marks()["buffer"]
    zips, rows, batch = term
    rubric = grader.load_rubric("buffer")
    assert set(rows) == {f"{name}.zip" for name in zips}, rows
    for name, work in ((n, STUDENTS[n]) for n in zips):
        marks = [float(rows[f"{name}.zip"][t.name]) for t in rubric.tests]
        assert marks == expected[work], (name, (batch / f"{name}.zip" / "report.md").read_text())


def test_the_starter_fails_both_hidden_tests_with_swimlanes(term):
    """Ada hands in the starter: her report shows why each hidden test failed (the gradebook's grading of it is
    the default tier's only grading of the starter)."""
    _, _, batch = term
    report = (batch / "ada.zip" / "report.md").read_text()
    assert "your StudentBuffer under lincheck" in report and "never accepted" in report
    assert "| # |" in report
    # trace validation: the first call of a recorded run the design cannot explain. The `if` shows as a take
    # returning null or as a put returning into a full buffer, whichever the run happened to do first
    # (a busy CI run got the put); the mark is the same either way.
    assert "your StudentBuffer under trace" in report
    assert re.search(r"`(take\(\) returns null|put\(\d+\) returns)  ← the design cannot do this`", report), report


@pytest.mark.full("setup.sh builds the zip's own .venv and Java from the registries, then grades four times", seconds=120)
def test_the_terms_zips_through_the_gradescope_autograder_its_setup_sh_built(term, tmp_path):
    """The same zips through the exported autograder, built from the zip alone and run as Gradescope does; its
    marks are the gradebook's. (The default tier runs the zip's run_autograder with this checkout's kit:
    test_batch.py.)"""
    expected = verify.sample_marks()["buffer"]
    zips, rows, _ = term
    root = tmp_path / "autograder"
    # check=False: about the export itself; the check the command runs first (every sample graded) is test_rubric_check's
    _unzip(gradescope.export("buffer", check=False), root / "source")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HANDOFFLAB_", "PYTEST", "VIRTUAL_ENV"))}
    env |= {"AUTOGRADER_ROOT": str(root), "PATH": os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                                                    if ".venv" not in p)}
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, text=True,
                           timeout=1800)
    assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
    assert f"grader checked: labs/buffer/starter got its known marks {expected['starter']}" in setup.stdout
    for name, work in STUDENTS.items():
        shutil.rmtree(root / "submission", ignore_errors=True)
        shutil.rmtree(root / "results", ignore_errors=True)
        with zipfile.ZipFile(zips[name]) as z:  # Gradescope unzips a submission into /autograder/submission
            z.extractall(root / "submission")
        run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True,
                             text=True, timeout=1800)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        results = json.loads((root / "results" / "results.json").read_text())
        assert [t["score"] for t in results["tests"]] == expected[work], (name, results["output"])
        assert results["score"] == float(rows[f"{name}.zip"]["score"])  # Gradescope and the gradebook agree


@pytest.mark.full("setup.sh's check of the grader (the starter) and the reference through run_autograder", seconds=120)
@pytest.mark.parametrize("lab", [lab for lab in release.labs() if lab != "buffer"])
def test_every_labs_gradescope_autograder_sets_up_and_grades_its_reference(lab, tmp_path, walk_samples, sample_text):
    """Every other lab's term on Gradescope: its zip, its setup.sh (the isolation, the starter's known marks) and
    its run_autograder on the lab's reference, in Gradescope's layout. The zip's kit is this checkout's, already
    built: building it from the registries is the buffer lab's walk above, and is the same kit for every lab; what
    differs per lab (the scripts, the known marks, the rubric) is the zip's own. The lab's buggy and hostile samples
    go through PrairieLearn's entrypoint (test_prairielearn): each sample is graded once per lab."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(gradescope.export(lab, check=False)) as z:
        for name in ("setup.sh", "run_autograder", "known-marks.json"):
            (root / "source").mkdir(parents=True, exist_ok=True)
            (root / "source" / name).write_bytes(z.read(name))
    (root / "source" / "kit").symlink_to(paths.ROOT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "VIRTUAL_ENV"))}
    env["AUTOGRADER_ROOT"] = str(root)
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, text=True,
                           timeout=1800)
    assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
    starter = verify.sample_marks()[lab]["starter"]
    assert f"grader checked: labs/{lab}/starter got its known marks {starter}" in setup.stdout
    marks = walk_samples(lab)["correct"]
    (root / "submission").mkdir()
    (root / "submission" / grader.load_rubric(lab).file).write_text(sample_text(lab, "correct")[1])
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True,
                         timeout=1800)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert [t["score"] for t in results["tests"]] == marks, (lab, results["output"])
    assert results["score"] == sum(marks)


def _unzip(zip_path: Path, to: Path) -> None:
    """As unzip (and Gradescope) unpack it: with each entry's stored mode, so that a file the zip keeps private
    stays private here and the jail's uid fails to read it as it would there (zipfile's own extractall drops
    modes, which once hid exactly that)."""
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(to)
        for info in z.infolist():
            if info.external_attr >> 16:
                (to / info.filename).chmod((info.external_attr >> 16) & 0o7777)


def test_setup_fails_when_the_grader_gives_other_marks(tmp_path):
    """setup.sh's check of the grader can fail: known marks that the starter does not get."""
    setup = gradescope.SETUP.format(lab="buffer", allow_weak="no", weak_flag="")
    script = setup[setup.index("if ! .venv/bin/python"):setup.index('rm -rf "$check"')]
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "known-marks.json").write_text('{"submission": "labs/buffer/starter", "marks": [2, 2, 3, 2, 1]}')
    (tmp_path / "check").mkdir()
    (tmp_path / "check" / "results.json").write_text('{"tests": [{"score": 2}, {"score": 2}, {"score": 0}, '
                                                     '{"score": 0}, {"score": 0}]}')
    (tmp_path / "check" / "log").write_text("graded\n")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    run = subprocess.run(["bash", "-c", f'set -euo pipefail; root={tmp_path}; check={tmp_path}/check; status=1\n'
                          + script + "\necho PASSED"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "PASSED" not in run.stdout, run.stdout + run.stderr
    assert "where the kit expects [2, 2, 3, 2, 1]" in run.stderr and "check of the grader failed" in run.stderr
