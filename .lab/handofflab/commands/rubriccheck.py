"""`./lab check rubric LAB`: does the lab still grade as its term was told, after the instructor changed its rubric?
Three things, each said with the file to update: the rubric loads (every name in it exists); the handout's table of
points (labs/LAB/README.md, one row per test in the rubric's order) shows the rubric's points; and the grader, with
this rubric, gives the lab's starter and every sample of grading/tests/submissions/expected.toml the marks recorded
there (the export's zip carries the starter's, which its setup.sh checks on the platform). `--record` writes the
rubric's points into the handout and the marks the grader gave into expected.toml. Every export runs the check first
and refuses to pack a lab that fails it."""
from __future__ import annotations

import concurrent.futures
import re
import tempfile
from pathlib import Path

import grader
from grader import batch
from handofflab.ground import paths
from handofflab.commands import verify
from handofflab.ground.console import LabError, ok, progress, warn


def handout_table(lab: str, handout: Path | None = None) -> list[tuple[int, str, str]]:
    """The rows of the handout's table of points: (line number, the row's test cell, its points cell)."""
    lines = (handout or paths.LABS / lab / "README.md").read_text().split("\n")
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.split("|")]
        if line.startswith("|") and len(cells) > 3 and cells[2] == "points":
            rows, j = [], i + 2  # the header, then its |---| line
            while j < len(lines) and lines[j].startswith("|"):
                cells = [c.strip() for c in lines[j].split("|")]
                rows.append((j, cells[1], cells[2]))
                j += 1
            return rows
    return []


def check_handout(lab: str, record: bool = False, handout: Path | None = None) -> list[str]:
    """What the handout's table says that the rubric does not (rewritten from the rubric when `record`)."""
    handout = handout or paths.LABS / lab / "README.md"
    tests = grader.load_rubric(lab).tests
    rows = handout_table(lab, handout)
    where = paths.shown(handout)
    if len(rows) != len(tests):
        return [f"{where}: its table of points has {len(rows)} row(s), the rubric {len(tests)} test(s): one row per "
                "test, in the rubric's order (edit the table by hand, then run this again)"]
    wrong, lines = [], handout.read_text().split("\n")
    for (n, label, shown), t in zip(rows, tests):
        if ("public" in label.lower()) == t.hidden:
            wrong.append(f"{where}, line {n + 1}: '{label}' is {'hidden' if t.hidden else 'public'} in the rubric "
                         f"('{t.name[:60]}'): the rows follow the rubric's order (edit the table by hand)")
        elif shown != f"{t.points:g}":
            wrong.append(f"{where}, line {n + 1}: '{label}' shows {shown} point(s), the rubric gives {t.points:g}")
            cells = lines[n].split("|")
            cells[2] = f" {t.points:g} "
            lines[n] = "|".join(cells)
    if record and wrong and not any("order" in w or "row(s)" in w for w in wrong):
        handout.write_text("\n".join(lines))
        ok(f"{where}: its table shows the rubric's points now")
        return []
    return wrong


def sample_marks_now(lab: str) -> dict[str, list[float | None]]:
    """The marks the grader gives the lab's starter and each of its samples with the rubric as it is now (None: a
    test the machine was too busy to judge)."""
    names = list(verify.sample_marks().get(lab, {"starter": []}))
    jobs = 1 if grader.load_rubric(lab).kinds & {"server", "dht"} else batch.batch_jobs()  # timed labs: alone

    def one(name: str) -> list[float | None]:
        with tempfile.TemporaryDirectory() as out:
            g = verify.grade_sample(lab, name, Path(out), allow_weak_isolation=True)
        if g.grader_error:
            raise LabError(f"the grader failed on {lab}'s sample {name}: {g.grader_error}", "fix what it names")
        return verify.marks(g)

    got = {}
    with progress() as bar, concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        task = bar.add_task(f"grading {lab}'s starter and {len(names) - 1} sample(s), {jobs} at a time", total=len(names))
        for name, marks in zip(names, pool.map(one, names)):
            got[name] = marks
            bar.update(task, description=f"{lab}/{name}: {marks}", advance=1)
    return got


def check_samples(lab: str, record: bool = False) -> list[str]:
    """Where the grader's marks now differ from expected.toml (written there instead when `record`)."""
    recorded = verify.sample_marks().get(lab, {})
    got = sample_marks_now(lab)
    busy = [n for n, marks in got.items() if None in marks]
    if busy:
        raise LabError(f"the machine was too busy to judge {', '.join(busy)} of lab {lab} (a test came back pending)",
                       "run it again on a quieter machine")
    differ = {n: marks for n, marks in got.items() if marks != [float(m) for m in recorded.get(n, [])]}
    if not differ:
        return []
    if record:
        _record(lab, differ)
        ok(f"{paths.shown(verify.EXPECTED)}: recorded lab {lab}'s new marks for {', '.join(differ)}")
        return []
    return [f"{lab}/{n}: the grader now gives {_marks(m)}, {paths.shown(verify.EXPECTED)} says "
            f"{_marks(recorded.get(n, []))}" for n, m in differ.items()]


def _marks(marks: list) -> str:
    return "[" + ", ".join(f"{float(m):g}" for m in marks) + "]"


def _record(lab: str, marks: dict[str, list[float]]) -> None:
    """Each sample's line of the lab's section of expected.toml rewritten with its new marks (comments kept)."""
    text = verify.EXPECTED.read_text()
    head = re.search(rf"^\[{re.escape(lab)}\]\n", text, re.M)
    if head is None:
        raise LabError(f"{paths.shown(verify.EXPECTED)} has no [{lab}] section", f"add one: [{lab}] then starter = [...]")
    end = re.search(r"^\[", text[head.end():], re.M)
    section = text[head.end(): head.end() + end.start() if end else len(text)]
    for name, m in marks.items():
        line = re.compile(rf'^({re.escape(name)}|"{re.escape(name)}") = \[[^\]]*\]', re.M)
        new = f"{name} = {_marks(m)}"
        section = line.sub(new, section, count=1) if line.search(section) else section.rstrip("\n") + f"\n{new}\n\n"
    verify.EXPECTED.write_text(text[:head.end()] + section + (text[head.end() + end.start():] if end else ""))


def check(lab: str, record: bool = False, handout: Path | None = None) -> None:
    """The whole check: the rubric, the handout's table (labs/LAB/README.md, or `handout`), the samples' marks. A
    LabError naming every difference and the file to update, unless `record` wrote them."""
    grader.load_rubric(lab)  # a wrong rubric is named first (RubricError: the grader's exit code)
    wrong = check_handout(lab, record, handout) + check_samples(lab, record)
    if wrong:
        raise LabError(f"lab {lab} does not grade as recorded:\n  " + "\n  ".join(wrong),
                       f"if the rubric is right, record it: ./lab check rubric {lab} --record (it rewrites the "
                       f"handout's points and {paths.shown(verify.EXPECTED)}); else fix labs/{lab}/rubric.toml")
    ok(f"lab {lab}: the rubric loads, the handout shows its points, and the starter and every sample get their "
       "recorded marks")
