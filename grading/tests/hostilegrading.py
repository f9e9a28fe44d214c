"""What the hostile-submission tests (test_hostile_runs.py, test_hostile_jail.py) share: the correct buffer with one
hostile act added (so a score tells what the act cost and nothing else), graded with a lighter rubric than the lab's
(its two public JUnit tests and a 1 s stress run: every kind of JVM the grader starts, through the same jail, without
Lincheck's 10 s per case; test_grading.py grades with the lab's full rubric), and the processes a grading left."""
import json
import subprocess
import time

import pytest

import grader
from grader import jail
from handofflab.ground import paths


CORRECT = (paths.ROOT / "grading" / "tests" / "submissions" / "buffer" / "correct" / "StudentBuffer.java").read_text()


isolated = pytest.mark.skipif(jail.ISOLATION != "full", reason=f"jail isolation here: {jail.ISOLATION}")


def hostile(tmp_path, static="", put="", name="sub"):
    """The correct submission with `static` as a static initializer and `put` at put()'s start."""
    src = CORRECT.replace("    public StudentBuffer(int capacity) {",
                          f"    static {{\n{static}\n    }}\n\n    public StudentBuffer(int capacity) {{", 1)
    src = src.replace("    public synchronized void put(T item) throws InterruptedException {\n",
                      f"    public synchronized void put(T item) throws InterruptedException {{\n{put}\n", 1)
    folder = tmp_path / name
    folder.mkdir()
    (folder / "StudentBuffer.java").write_text(src)
    return folder


LIGHT = {**grader.rubric.data("buffer"), "test": [
    {"name": "public: one thread sees a FIFO", "kind": "junit", "method": "oneThreadSeesAFifo", "points": 3},
    {"name": "public: put waits for room, take waits for an item", "kind": "junit",
     "method": "putWaitsForRoomAndTakeForAnItem", "points": 3},
    {"name": "hidden: stress under a watchdog", "kind": "checker", "checker": "stress", "like": "MonitorBuffer", "seconds": 1, "points": 4},
]}


def grade(tmp_path, submission):
    start = time.monotonic()
    g = grader.grade("buffer", submission, tmp_path / "out", rubric=LIGHT)
    results = json.loads((tmp_path / "out" / "results.json").read_text())  # valid JSON, Gradescope's keys
    assert results["score"] == g.score and results["max_score"] == 10 and len(results["tests"]) == 3
    report = (tmp_path / "out" / "report.md").read_text()
    assert len(report) < 400_000
    return g, report, time.monotonic() - start


def jailed_processes():
    """Processes left running under a uid this test process's gradings were given (not those of
    gradings another process runs at the same time)."""
    assert jail.ISSUED, "no grading ran in this process: there is nothing to look for"
    # A zombie (state Z) runs nothing and holds no memory: a jail's first process killed with its
    # group is reaped by the host's init, not by the grader (not its parent), and CI once caught one
    # in that instant. What must not exist is a process still running.
    run = subprocess.run(["ps", "-eo", "uid=,pid=,stat=,args="], capture_output=True, text=True)
    return [line for line in run.stdout.splitlines()
            if int(line.split()[0]) in jail.ISSUED and not line.split()[2].startswith("Z")]


# The attack that gave a do-nothing buffer 10/10: it reads where the grader wants the reports
# (its command line), writes a passing JUnit report and checker verdict there, and ends the JVM.
FORGE = r'''
        try {
            String[] cmd = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("/proc/self/cmdline"))).split("\0");
            for (int i = 0; i + 1 < cmd.length; i++) {
                if (cmd[i].equals("--out")) {
                    java.nio.file.Files.write(java.nio.file.Paths.get(cmd[i + 1]),
                        "{\"checker\":\"stress\",\"verdict\":\"pass\",\"detail\":\"\",\"trace\":\"\",\"steps\":[],\"ending\":{},\"stats\":{}}".getBytes());
                }
            }
        } catch (Exception e) { }
        Runtime.getRuntime().halt(0);'''


def results_json(out):
    """A grading's results.json, with the keys Gradescope needs."""
    data = json.loads((out / "results.json").read_text())
    assert {"score", "max_score", "tests", "output"} <= set(data)
    return data
