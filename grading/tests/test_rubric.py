"""Rubrics as typed, validated data: every lab's rubric loads; a misspelt key, an unknown kind or
a missing field is named with its place; hidden tests are hidden in results.json; each lab's
feedback points to that lab's own hints; and every lab folder has the shape the grader and the
tests read, checked both ways (a lab without samples, samples without a lab)."""
import json
import re

import pytest

import grader
from grader import feedback, rubric
from handofflab.ground import paths
from handofflab.ground.console import LabError

LABS = sorted(p.parent.name for p in paths.LABS.glob("*/rubric.toml"))


@pytest.mark.parametrize("lab", LABS)
def test_every_rubric_validates(lab):
    r = grader.load_rubric(lab)
    assert r.lab == lab and sum(t.points for t in r.tests) == 10
    assert any(t.hidden for t in r.tests) and any(not t.hidden for t in r.tests)


@pytest.mark.parametrize("change, named", [
    (lambda d: d.update(titel="x"), "'titel'"),
    (lambda d: d["test"][0].update(kind="junitt"), "unknown kind 'junitt'"),
    (lambda d: d["test"][2].update(secs=3), "'secs'"),
    (lambda d: d["test"][0].pop("method"), "lacks method"),
    (lambda d: d.update(hints={"deadlok": 2}), "'deadlok'"),
    (lambda d: d["test"][0].update(points="three"), "points = 'three' is not a positive number"),
    (lambda d: d["test"][0].update(points=-3), "points = -3 is not a positive number"),
    (lambda d: d["test"][0].update(hidden="yes"), "hidden = 'yes' is not true or false"),
    (lambda d: d["test"][2].update(withheld=True), "`withheld` says why"),
    (lambda d: d["test"][2].update(withheld="no"), "`withheld` says why"),
    # what the rubric names must exist: a slip here would grade every student wrong, and blame them
    (lambda d: d["test"][2].update(checker="lincheq"), "names 'lincheq', which MonitorBuffer (a handoff) is not checked by"),
    (lambda d: d["test"][2].update(checker=["lincheck", "locks"]), "names 'locks'"),
    (lambda d: d["test"][0].update(method="oneThreadSeesAFifoo"), "method = 'oneThreadSeesAFifoo' is no test method"),
    (lambda d: d.update(file="Buffer.java"), "file = 'Buffer.java' is not the lab's starter file"),
    (lambda d: d.update({"class": "handofflab.labs.buffer.Buffer"}), "is not the class labs/buffer/starter"),
    (lambda d: d.update(api="handof"), "api = 'handof' is no profile"),
    (lambda d: d["test"][2].update(seconds=0), "seconds = 0 is not a positive number"),
    (lambda d: d["test"][1].update(name=d["test"][0]["name"]), "two tests are called"),
    (lambda d: d.update(hints={"deadlock": 40}), "hint(s) the handout does not have"),
])
def test_a_wrong_rubric_is_named_with_its_place(change, named):
    data = rubric.data("buffer")
    change(data)
    with pytest.raises(LabError) as e:
        rubric.parse(data, "labs/buffer/rubric.toml")
    assert named in e.value.problem and "labs/buffer/rubric.toml" in e.value.problem
    assert e.value.fix, "the error says how to fix it"


def test_hidden_tests_are_hidden_in_results_json(tmp_path):
    grader.grade("buffer", paths.GRADING / "tests" / "submissions" / "buffer" / "wrong_package", tmp_path)
    tests = json.loads((tmp_path / "results.json").read_text())["tests"]
    seen = {t["name"]: t["visibility"] for t in tests}
    assert {v for n, v in seen.items() if n.startswith("hidden")} == {"after_published"}
    assert {v for n, v in seen.items() if n.startswith("public")} == {"visible"}


def test_a_withheld_test_is_left_to_the_instructor_with_its_reason():
    """The student runs every test of a rubric (check-lab) but those that say why they may not: the mutants lab's
    hidden mutants, the runs beside a kit answer."""
    mutants = grader.load_rubric("mutants")
    assert {t.name for t in mutants.withheld} == {t.name for t in mutants.tests if t.kind == "mutants" and t.hidden}
    assert all("hidden test set" in t.withheld for t in mutants.withheld)
    assert [t.name for t in mutants.for_student().tests] == [t.name for t in mutants.tests if not t.withheld]
    assert grader.load_rubric("buffer").withheld == [] and grader.load_rubric("pht").withheld == []
    data = rubric.data("buffer")
    data["test"][2]["withheld"] = "it runs the kit's own buffer, the lab's answer"
    r = rubric.parse(data, "a changed buffer rubric")
    assert [t.name for t in r.withheld] == [data["test"][2]["name"]] and len(r.for_student().tests) == len(r.tests) - 1


def test_check_lab_names_each_test_it_leaves_out_and_what_its_quick_mode_changes():
    """What check-lab says before it runs: each withheld test with its reason, the scoring it cannot see whole, and the
    stress run its quick mode shortens (the PHT lab's 9 s to 3), which --full keeps."""
    from handofflab.commands import student
    rubric, notes = student.student_rubric("server", full=False)
    for t in grader.load_rubric("server").withheld:
        assert any(t.name in n and t.withheld in n for n in notes), notes
    assert len(rubric.tests) == 2
    _, notes = student.student_rubric("mutants", full=False)
    assert any("not the whole rule here" in n for n in notes)
    quick, notes = student.student_rubric("pht", full=False)
    full, full_notes = student.student_rubric("pht", full=True)
    assert [t.seconds for t in quick.tests if "stress" in t.checkers] == [3.0] and any(n.startswith("quick:") for n in notes)
    assert [t.seconds for t in full.tests if "stress" in t.checkers] == [9] and full_notes == []


@pytest.mark.parametrize("lab", LABS)
def test_each_labs_hints_read_as_text_in_a_terminal(lab):
    """`./lab hint` shows the handout's Markdown in a terminal: its inline math as plain text, never raw TeX."""
    from handofflab.commands.student import terminal_text
    for n in range(1, rubric.hint_count(lab) + 1):
        text = terminal_text(rubric.hint(lab, n))
        assert "$" not in text and not re.search(r"\\[A-Za-z,]", text), f"{lab} hint {n}: {text}"
    assert terminal_text("with $m = 4$ and $k \\bmod (m-1)$") == "with m = 4 and k mod (m-1)"


@pytest.mark.parametrize("lab", LABS)
def test_each_labs_hints_exist_in_its_own_handout(lab):
    r = grader.load_rubric(lab)
    for topic, number in r.hints.items():
        assert rubric.hint(lab, number), f"labs/{lab}/rubric.toml: [hints] {topic} = {number}, no such hint"


def test_feedback_points_to_the_hint_of_the_lab_it_grades():
    hang = {"verdict": "deadlock", "detail": "no progress for 500 ms and every thread is waiting", "trace": ""}
    buffer, pht = grader.load_rubric("buffer"), grader.load_rubric("pht")
    on_buffer, on_pht = feedback.explain(hang, buffer), feedback.explain(hang, pht)
    assert rubric.hint("buffer", buffer.hints["deadlock"]) in on_buffer
    assert rubric.hint("pht", pht.hints["deadlock"]) in on_pht
    assert rubric.hint("buffer", buffer.hints["deadlock"]) not in on_pht
    spin = feedback.explain({"verdict": "deadlock", "detail": "", "trace": "the following events repeat infinitely"},
                            pht)
    assert "spins" in spin and rubric.hint("pht", pht.hints["spin"]) in spin


def test_a_stores_race_is_told_by_what_its_steps_show_two_locks_a_throw_or_no_lock():
    """The calendar's Lincheck feedback reads the swimlane: two lock objects taken in a race on one event are two
    locks of that event (a lock map made racily); a request that threw is named by its exception; otherwise a
    request looked without the lock."""
    calendar = grader.load_rubric("calendar")
    race = {"verdict": "violation:Linearizable", "detail": ""}
    two = feedback.explain({**race, "trace": "| ReentrantLock#2.lock() |\n| ReentrantLock#1.lock() |"}, calendar, "store")
    assert "`ReentrantLock#1` and `ReentrantLock#2`" in two and rubric.hint("calendar", calendar.hints["two_locks"]) in two
    one = feedback.explain({**race, "trace": "| ReentrantLock#1.lock() |\n| ReentrantLock#1.lock() |"}, calendar, "store")
    assert "without holding the event's lock" in one and "not the same one" not in one
    threw = feedback.explain({**race, "trace": "modify(1000, 1): ConcurrentModificationException #1"}, calendar, "store")
    assert "threw `ConcurrentModificationException`" in threw and "`HashMap`" in threw and "handoff" not in threw
    npe = feedback.explain({**race, "trace": "modify(1000, 1): NullPointerException #1"}, calendar, "store")
    assert "threw `NullPointerException`" in npe and "`HashMap`" not in npe


def test_every_lab_folder_has_its_shape_and_every_sample_folder_a_lab():
    from handofflab.commands import verify
    samples = paths.GRADING / "tests" / "submissions"
    marks = verify.sample_marks()
    assert set(marks) == set(LABS), "expected.toml has one section per lab, and no other"
    for lab in LABS:
        folder = paths.LABS / lab
        r = grader.load_rubric(lab)
        assert (folder / "starter" / r.file).is_file(), f"labs/{lab}/starter/{r.file}"
        assert "## Hints" in (folder / "README.md").read_text(), f"labs/{lab}/README.md has no hints"
        assert rubric.hint(lab, 1), f"labs/{lab}/README.md: the hints are a numbered list"
        assert "starter" in marks[lab], f"expected.toml: the marks of lab {lab}'s starter"
        if r.kinds & {"junit"}:
            assert (folder / "public").is_dir() and any((folder / "public").glob("*.java"))
    on_disk = {p.name for p in samples.iterdir() if p.is_dir()}
    assert on_disk <= set(LABS), f"sample folders without a lab: {on_disk - set(LABS)}"


def test_the_book_draws_every_part_of_the_grader():
    """The book's picture of the grader stays true: every module is on it, and no other."""
    page = (paths.BOOK / "src" / "architecture.md").read_text()
    package = paths.GRADING / "grader"
    modules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"} | {"kinds/"}
    listed = set(re.findall(r"^\| `([\w/]+)` \|", page, re.M))
    assert listed == modules
    kinds = {p.stem for p in (package / "kinds").glob("*.py") if p.stem != "__init__"}
    assert all(f"`{k}`" in page for k in kinds) and kinds == set(grader.kinds.KINDS)


BROKEN = {  # the slips, each in the calendar lab's rubric: (change, what the error names)
    "misspelt checker": (lambda d: d["test"][3].update(checker="lock"), "checker = ['lock'] names 'lock'"),
    "points as a string": (lambda d: d["test"][2].update(points="three"), "points = 'three'"),
    "negative points": (lambda d: d["test"][2].update(points=-3), "points = -3"),
    "unknown method": (lambda d: d["test"][0].update(method="oneUserAtATyme"), "method = 'oneUserAtATyme'"),
    "unknown file": (lambda d: d.update(file="Store.java"), "file = 'Store.java'"),
}


@pytest.mark.parametrize("slip", BROKEN)
def test_a_wrong_rubric_is_a_grader_error_at_grade_and_at_export_and_no_students_mark(slip, tmp_path, monkeypatch,
                                                                                       capsys):
    """The instructor's slip never becomes a student's lost marks: `./lab grade` writes results.json with
    grader_error and no test scored, and exits 3 (the grader failed); the export refuses, naming the key and fix."""
    from handofflab.commands import cli
    change, named = BROKEN[slip]
    data = rubric.data("calendar")
    change(data)
    real = rubric.data
    monkeypatch.setattr(rubric, "data", lambda lab: data if lab == "calendar" else real(lab))
    out = tmp_path / "out"
    for args in (["grade", "calendar", str(paths.GRADING / "tests" / "submissions" / "calendar" / "correct"),
                  "--out", str(out), "--allow-weak-isolation"], ["export-gradescope", "calendar"]):
        monkeypatch.setattr("sys.argv", ["./lab", *args])
        with pytest.raises(SystemExit) as ended:
            cli.main()
        said = capsys.readouterr().out
        assert ended.value.code == 3, (args[0], said)
        assert named in " ".join(said.split()) and "rubric.toml" in said and ("Fix:" in said or "fix:" in said), said
        assert "Traceback" not in said
    results = json.loads((out / "results.json").read_text())
    assert named in results["extra_data"]["grader_error"] and results["tests"] == [] and results["score"] == 0
    assert "the lab's rubric is wrong" in results["output"] and "not your code" in results["output"]
