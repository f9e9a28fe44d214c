"""Reports no submission can forge: a JUnit report or a checker verdict written where the grader reads them, a
server's or a completion queue's results line, a report that is a link, a FIFO or too large. Each attack gets the
marks its real behaviour earns (a do-nothing buffer earns nothing). test_forgery_allowlist.py holds what the
bytecode check refuses; test_hostile_*.py the attacks on the machine."""
import os
import sys
from pathlib import Path

import pytest

import grader
from handofflab.ground import paths

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from hostilegrading import CORRECT, FORGE, grade, hostile  # noqa: E402
from labgrading import SAMPLES  # noqa: E402






DO_NOTHING = CORRECT.replace("    public synchronized void put(T item) throws InterruptedException {\n",
                             "    public synchronized void put(T item) throws InterruptedException {\n        if (true) return;\n", 1)


def test_the_forging_attack_is_refused_and_scores_nothing(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=FORGE))
    assert g.score == 0, report
    assert "`java.nio.file.Files" in g.problem and "`java.lang.Runtime" in g.problem, g.problem


def test_a_handoff_that_writes_the_servers_results_is_refused(tmp_path):
    """The server lab's forgery: a handoff that drops every connection and writes ServerBench's CSV."""
    src = (SAMPLES / "server" / "correct" / "StudentHandoff.java").read_text()
    forged = src[:src.rindex("}")] + (
        "    static {\n        try {\n            java.nio.file.Files.writeString(java.nio.file.Path.of(\"server-runs.csv\"),\n"
        "                \"design,rep,efficiency,status\\nSharedBuffer@x,1,1.0,ok\\n\");\n"
        "        } catch (java.io.IOException e) { }\n    }\n}\n")
    sub = tmp_path / "forged"
    sub.mkdir()
    (sub / "StudentHandoff.java").write_text(forged)
    g = grader.grade("server", sub, tmp_path / "out")
    assert g.score == 0 and "`java.nio.file.Files" in g.problem, g.report()


def test_a_completion_queue_that_prints_a_results_line_is_refused(tmp_path):
    """The DHT lab's forgery: each process's standard output is the JSON line the grader reads, so a queue
    that printed a line of its own (a fast time, nothing wrong) could claim the efficiency marks."""
    src = (SAMPLES / "dht" / "naps_while_waiting" / "StudentCompletionQueue.java").read_text()
    forged = src.replace("    @Override\n    public void idle()", (
        "    static {\n        Thread t = new Thread(() -> {\n            while (true) {\n"
        "                System.out.println(\"{\\\"id\\\": 0, \\\"wrong\\\": 0, \\\"barrier_us_per_value\\\": [1, 1, 1]}\");\n"
        "                Thread.onSpinWait();\n            }\n        });\n        t.setDaemon(true);\n        t.start();\n    }\n\n"
        "    @Override\n    public void idle()"), 1)
    assert forged != src
    sub = tmp_path / "forged"
    sub.mkdir()
    (sub / "StudentCompletionQueue.java").write_text(forged)
    g = grader.grade("dht", sub, tmp_path / "out")
    assert g.score == 0 and "`java.lang.System.out" in g.problem, g.report()


def test_a_do_nothing_buffer_earns_what_it_does_nothing(tmp_path):
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "StudentBuffer.java").write_text(DO_NOTHING)
    g, report, _ = grade(tmp_path, folder)
    assert g.score == 0, report


def test_a_report_is_read_only_as_a_regular_file_under_its_cap(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("{}")
    assert grader.read_report(real) == "{}"
    link = tmp_path / "link.json"
    link.symlink_to("/etc/shadow")
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * (grader.budgets.REPORT_CAP + 1))
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for bad in (link, big, fifo, tmp_path / "missing.json"):
        with pytest.raises(grader.MalformedReport):
            grader.read_report(bad)


# -- unpacking -----------------------------------------------------------------------------
