"""With HANDOFFLAB_ISOLATION=weak the grading suites run as a host without namespaces would run
them: every grading is then allowed the weak level (as `--allow-weak-isolation` does), and each
test still holds the grader to the same marks (the allow-list does not depend on the host)."""
import functools
import json
import os
from pathlib import Path

import pytest

import grader


FORCED_WEAK = os.environ.get("HANDOFFLAB_ISOLATION") == "weak"


@pytest.fixture(autouse=True)
def _weak_isolation_allowed(monkeypatch):
    if FORCED_WEAK:
        weak = functools.partial(grader.single.grade, allow_weak_isolation=True)
        monkeypatch.setattr(grader, "grade", weak)            # what the tests call
        monkeypatch.setattr(grader.single, "grade", weak)    # what grade_batch and reruns call
    yield


def _gradescope_results(folder: Path) -> dict:
    """A grading's results.json, held to Gradescope's schema: every test has its name, score,
    max_score, status, output and visibility, and its status follows its score."""
    results = json.loads((folder / "results.json").read_text())
    assert {"score", "max_score", "tests"} <= results.keys()
    for t in results["tests"]:
        assert {"name", "score", "max_score", "status", "output", "visibility"} <= t.keys()
        assert t["status"] == ("passed" if t["score"] == t["max_score"] else "failed")
    return results


@pytest.fixture
def gradescope_results():
    """_gradescope_results, for the test modules (under --import-mode=importlib they cannot import each other)."""
    return _gradescope_results


# The labs whose answers a lab's copy needs revealed (graded first): the mutants lab runs the buffer and server
# answers, the database lab extends the calendar's store. A copy of such a lab alone is refused without them.
NEEDS_REVEALED = {"mutants": ("buffer", "server"), "database": ("calendar",)}


def _make_copy(target: Path, labs: list[str]) -> Path:
    """`./lab release TARGET --lab …` for a test, with the copy's own .tools holding the kit's TLC jar (a copy
    fetches TLC itself on first use; copied, not linked: a kit under /tmp, as a CI clone may be, is out of a
    grading jail's sight, which empties /tmp but for the copy itself). The labs these need graded first are
    revealed, as an instructor releases them."""
    import shutil

    from handofflab.ground import toolchain
    from handofflab.commands import release
    reveal = sorted({o for lab in labs for o in NEEDS_REVEALED.get(lab, ())} - set(labs))
    release.release(target, labs, reveal=tuple(reveal))
    (target / ".tools" / "tla").mkdir(parents=True)
    jar = toolchain.tlc_jar()
    shutil.copyfile(jar, target / ".tools" / "tla" / jar.name)
    return target


def _in_copy(copy: Path, *args: str, results: Path, cwd: Path | None = None):
    """`./lab ARGS` as a student runs it in a copy: the copy's own code (its .lab and grading first on the
    path); it borrows the kit's .venv only to skip a second install."""
    import subprocess
    import sys
    env = {**os.environ, "PYTHONPATH": f"{copy / '.lab'}:{copy / 'grading'}", "HANDOFFLAB_RESULTS": str(results)}
    return subprocess.run([sys.executable, "-m", "handofflab", *args], cwd=cwd or copy, env=env, capture_output=True,
                          text=True, timeout=900)


def _walk_samples(lab: str) -> dict[str, list[float]]:
    """What a platform's walk grades besides the starter: the lab's reference and the first sample that loses some
    points and keeps others, with their expected marks (pipes-spec's reference is specs/Pipes.tla, at full marks;
    it has no buggy sample but its starter)."""
    from handofflab.commands import verify
    expected = verify.sample_marks()[lab]
    tests = grader.load_rubric(lab).tests
    most = sum(t.points for t in tests)
    buggy = [n for n, m in expected.items() if n not in ("starter", "correct") and 0 < sum(m) < most][:1]
    return {"correct": expected.get("correct", [t.points for t in tests]), **{n: expected[n] for n in buggy}}


def _sample_text(lab: str, name: str) -> tuple[str, str]:
    """(the lab's one file, its text) for a sample: the starter, the reference, or a sample's folder."""
    from handofflab.ground import paths
    file = grader.load_rubric(lab).file
    if name == "starter":
        return file, (paths.LABS / lab / "starter" / file).read_text()
    if lab == "pipes-spec" and name == "correct":
        return file, (paths.SPECS / "Pipes.tla").read_text()
    return file, (paths.GRADING / "tests" / "submissions" / lab / name / file).read_text()


@pytest.fixture(scope="session")
def walk_samples():
    """_walk_samples, for the test modules."""
    return _walk_samples


@pytest.fixture(scope="session")
def sample_text():
    """_sample_text, for the test modules."""
    return _sample_text


# The one student copy the default tier releases (a release builds the answer-free book again): test_release
# judges what it holds and test_term walks a term through it. Three labs stay out (database, dht, mutants), so
# "the copy holds only the labs it was made for" can fail.
COPY_LABS = ["buffer", "pht", "pipes-spec", "server", "calendar"]


@pytest.fixture(scope="session")
def student_copy(tmp_path_factory):
    """The copy for COPY_LABS. Its users share the xdist group "source-tree": one worker makes it, once."""
    return _make_copy(tmp_path_factory.mktemp("student") / "handoff-lab", COPY_LABS)


# The lab test_term walks its students through in the copy (check-lab on a pass and on a failure, a hint, a batch):
# the copy's other labs run their public checks once each in test_release.
TERM_LAB = "buffer"


def pytest_generate_tests(metafunc):
    """A test that takes `copy_lab` runs once per lab of the student copy but the term's (test_term runs its public
    checks three times over, with the marks each public test must get)."""
    if "copy_lab" in metafunc.fixturenames:
        # check-lab runs every check a student may: the PHT's and the calendar's Lincheck and stress runs cost half a
        # minute each on the one worker the copy's tests share; the full tier walks every lab in a copy of its own
        heavy = pytest.mark.full("every check of the lab in the copy (about 30 s); the default tier checks the pipes-spec "
                                 "lab here, and walks the buffer lab's students through the copy", seconds=30)
        metafunc.parametrize("copy_lab", [pytest.param(lab, marks=heavy) if lab in ("pht", "calendar", "server") else lab
                                          for lab in COPY_LABS if lab != TERM_LAB])


@pytest.fixture(scope="session")
def make_copy():
    """_make_copy, for the test modules (a module's own copy fixture takes it)."""
    return _make_copy


@pytest.fixture(scope="session")
def in_copy():
    """_in_copy, for the test modules."""
    return _in_copy
