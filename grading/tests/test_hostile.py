"""Hostile submissions: each gets a clear result and a valid results.json, nothing escapes the
sandbox, and the grader never crashes. Every case is the correct buffer (full marks when left
alone) with one hostile act added, so a score tells what the act cost and nothing else.

The cases are graded with a lighter rubric than the lab's: its two public JUnit tests and a
1 s stress run. Those start every kind of JVM the grader starts (the JUnit launcher and a
checker, through the same sandbox), without Lincheck's 10 s per case; test_grading.py grades
with the lab's full rubric."""
import json
import os
import re
import socket
import subprocess
import threading
import time
import zipfile

import pytest

from handofflab import grader, paths, sandbox

CORRECT = (paths.ROOT / "grading" / "tests" / "submissions" / "buffer" / "correct" / "StudentBuffer.java").read_text()
full = pytest.mark.skipif(sandbox.ISOLATION != "full", reason=f"sandbox isolation here: {sandbox.ISOLATION}")


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


LIGHT = {**grader.load_rubric("buffer"), "test": [
    {"name": "public: one thread sees a FIFO", "kind": "junit", "method": "oneThreadSeesAFifo", "points": 3},
    {"name": "public: put waits for room, take waits for an item", "kind": "junit",
     "method": "putWaitsForRoomAndTakeForAnItem", "points": 3},
    {"name": "hidden: stress under a watchdog", "kind": "checker", "checker": "stress", "seconds": 1, "points": 4},
]}


def grade(tmp_path, submission):
    start = time.monotonic()
    g = grader.grade("buffer", submission, tmp_path / "out", rubric=LIGHT)
    results = json.loads((tmp_path / "out" / "results.json").read_text())  # valid JSON, Gradescope's keys
    assert results["score"] == g.score and results["max_score"] == 10 and len(results["tests"]) == 3
    report = (tmp_path / "out" / "report.md").read_text()
    assert len(report) < 400_000
    return g, report, time.monotonic() - start


def nobody_processes():
    run = subprocess.run(["pgrep", "-u", "nobody", "-a"], capture_output=True, text=True)
    return run.stdout.strip()


def test_an_infinite_loop_is_stopped_by_the_time_limits(tmp_path):
    g, report, seconds = grade(tmp_path, hostile(tmp_path, put="        while (item != null) { Thread.onSpinWait(); }"))
    assert g.score == 0, report
    assert "timed out after 5 seconds" in report and "a loop that never ends" in report, report
    assert seconds < 4 * grader.TEST_SECONDS


def test_a_deadlock_is_a_verdict_not_a_hang(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, put="        while (item != null) { wait(); }"))
    assert g.score == 0 and "timed out after 5 seconds" in report and "lost wake-up" in report, report


@pytest.mark.parametrize("act", ["System.exit(0);", "Runtime.getRuntime().halt(3);"])
def test_ending_the_jvm_is_named(tmp_path, act):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=f"        {act}"))
    assert g.score == 0 and "`System.exit` or `Runtime.halt`" in report, report


def test_a_static_initializer_that_never_returns(tmp_path):
    g, report, seconds = grade(tmp_path, hostile(tmp_path, static=(
        "        try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }")))
    # The first public test times out; JUnit then interrupts its thread, which ends this sleep, so
    # the class finishes loading and the second public test may pass. The checkers name it.
    assert g.score <= 3 and "static initializer never returns" in report, report
    assert seconds < 3 * grader.TEST_SECONDS


def test_a_memory_bomb_runs_out_inside_its_own_heap(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=(
        "        java.util.List<long[]> hog = new java.util.ArrayList<>();\n"
        "        while (hog.size() >= 0) { hog.add(new long[1 << 24]); }")))
    assert g.score == 0 and "OutOfMemoryError" in report, report


def test_a_gigabyte_of_output_is_cut_and_the_grade_stands(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=(
        "        byte[] line = new byte[1 << 20];\n"
        "        java.util.Arrays.fill(line, (byte) 'x');\n"
        "        for (int i = 0; i < 1024; i++) { System.out.write(line, 0, line.length); }\n"
        "        System.out.flush();")))
    assert g.score == 10, report  # printing is not wrong; it is only not kept


def test_a_leaked_thread_does_not_keep_the_grader_waiting(tmp_path):
    g, _, seconds = grade(tmp_path, hostile(tmp_path, static=(
        "        new Thread(() -> { while (true) { try { Thread.sleep(1000); } catch (InterruptedException e) { } } })"
        ".start();")))
    assert g.score == 10 and seconds < grader.TEST_SECONDS
    assert nobody_processes() == ""


@full
def test_a_fork_bomb_hits_the_process_limit_and_leaves_nothing_behind(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=(
        "        try {\n"
        "            for (int i = 0; i < 100000; i++) { new ProcessBuilder(\"sleep\", \"600\").start(); }\n"
        "        } catch (java.io.IOException e) { throw new RuntimeException(\"FORK-STOPPED \" + e.getMessage()); }")))
    # The process limit stops the forks, or the JVM's own next thread: either way, named.
    assert g.score == 0 and ("FORK-STOPPED" in report or "process/resource limits reached" in report), report
    assert nobody_processes() == ""


@full
def test_no_reading_hidden_tests_no_writing_outside_no_tampering_no_network(tmp_path):
    hidden = paths.ROOT / "grading" / "tests" / "test_grading.py"
    rubric = paths.LABS / "buffer" / "rubric.toml"
    before = rubric.read_bytes()
    outside = [paths.ROOT / "PWNED", paths.LABS / "buffer" / "PWNED", tmp_path / "PWNED"]
    server = socket.create_server(("127.0.0.1", 0))  # the host's loopback: the sandbox must not reach it
    server.settimeout(0.2)
    accepted = []
    stop = threading.Event()

    def listen():
        while not stop.is_set():
            try:
                accepted.append(server.accept())
            except OSError:
                pass
    threading.Thread(target=listen, daemon=True).start()

    def attempt(label, java):
        return (f"        try {{ {java} r.append(\"{label}:OPEN \"); }}"
                f" catch (Exception e) {{ r.append(\"{label}:blocked \"); }}")
    acts = [
        attempt("read-hidden", f"java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(\"{hidden}\"));"),
        attempt("list-grading", f"if (new java.io.File(\"{hidden.parent}\").list().length == 0) throw new Exception();"),
        attempt("tamper", f"java.nio.file.Files.write(java.nio.file.Paths.get(\"{rubric}\"), new byte[0]);"),
        *[attempt(f"write-{i}", f"java.nio.file.Files.write(java.nio.file.Paths.get(\"{p}\"), new byte[1]);")
          for i, p in enumerate(outside)],
        attempt("net-host", f"new java.net.Socket(\"127.0.0.1\", {server.getsockname()[1]}).close();"),
        attempt("net-out", "new java.net.Socket().connect(new java.net.InetSocketAddress(\"192.0.2.1\", 80), 1000);"),
    ]
    static = "        StringBuilder r = new StringBuilder();\n" + "\n".join(acts) + \
             "\n        if (r.length() > 0) throw new RuntimeException(\"SNOOP \" + r);"
    try:
        g, report, _ = grade(tmp_path, hostile(tmp_path, static=static))
    finally:
        stop.set()
        server.close()
    tried = dict(re.findall(r"([\w-]+):(OPEN|blocked)", report))
    assert len(tried) == len(acts), report
    assert {k for k, v in tried.items() if v == "OPEN"} == set(), report
    assert rubric.read_bytes() == before and not any(p.exists() for p in outside) and accepted == []
    assert g.score == 0


def test_a_symbolic_link_is_refused_in_a_folder_and_in_a_zip(tmp_path):
    folder = tmp_path / "linked"
    folder.mkdir()
    (folder / "StudentBuffer.java").symlink_to(paths.ROOT / "grading" / "tests" / "test_grading.py")
    g, report, _ = grade(tmp_path, folder)
    assert g.score == 0 and "no `StudentBuffer.java`" in g.problem and "a symbolic link" in g.problem
    z = tmp_path / "linked.zip"
    with zipfile.ZipFile(z, "w") as f:
        info = zipfile.ZipInfo("StudentBuffer.java")
        info.external_attr = 0o120777 << 16
        f.writestr(info, str(paths.ROOT / "labs" / "buffer" / "rubric.toml"))
    (tmp_path / "z").mkdir()
    g, _, _ = grade(tmp_path / "z", z)
    assert g.score == 0 and "a symbolic link" in g.problem
