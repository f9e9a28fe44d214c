"""Hostile submissions: each gets a clear result and a valid results.json, nothing escapes the
jail, and the grader never crashes. Every case is the correct buffer (full marks when left
alone) with one hostile act added, so a score tells what the act cost and nothing else.

The cases are graded with a lighter rubric than the lab's: its two public JUnit tests and a
1 s stress run. Those start every kind of JVM the grader starts (the JUnit launcher and a
checker, through the same jail), without Lincheck's 10 s per case; test_grading.py grades
with the lab's full rubric."""
import concurrent.futures
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

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


@pytest.mark.full("spins for the whole of each checker's time limit", seconds=34)
def test_an_infinite_loop_is_stopped_by_the_time_limits(tmp_path):
    g, report, seconds = grade(tmp_path, hostile(tmp_path, put="        while (item != null) { Thread.onSpinWait(); }"))
    assert g.score == 0, report
    assert "timed out after 5 seconds" in report and "a loop that never ends" in report, report
    assert seconds < 4 * grader.budgets.TEST_SECONDS


def test_a_deadlock_is_a_verdict_not_a_hang(tmp_path):
    # every put waits for ever (its item is never null), so nothing is ever handed over: stress says so,
    # rather than blaming a lost wake-up
    g, report, _ = grade(tmp_path, hostile(tmp_path, put="        while (item != null) { wait(); }"))
    assert g.score == 0 and "timed out after 5 seconds" in report and "Not one connection was handed over" in report, report


@pytest.mark.parametrize("act, named", [("System.exit(0);", "java.lang.System.exit"),
                                        ("Runtime.getRuntime().halt(3);", "java.lang.Runtime")])
def test_ending_the_jvm_is_refused_before_anything_runs(tmp_path, act, named):
    g, report, seconds = grade(tmp_path, hostile(tmp_path, static=f"        {act}"))
    assert g.score == 0 and f"`{named}" in g.problem and "was not run" in g.problem, report


def test_a_static_initializer_that_never_returns(tmp_path):
    g, report, seconds = grade(tmp_path, hostile(tmp_path, static=(
        "        try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }")))
    # The first public test times out; JUnit then interrupts its thread, which ends this sleep, so
    # the class finishes loading and the second public test may pass. The checkers name it.
    assert g.score <= 3 and "static initializer never returns" in report, report
    assert seconds < 3 * grader.budgets.TEST_SECONDS


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
    assert g.score == 10 and seconds < grader.budgets.TEST_SECONDS
    assert jailed_processes() == []


def test_a_fork_bomb_is_refused_before_it_runs(tmp_path):
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=(
        "        try {\n"
        "            for (int i = 0; i < 100000; i++) { new ProcessBuilder(\"sleep\", \"600\").start(); }\n"
        "        } catch (java.io.IOException e) { throw new RuntimeException(\"FORK-STOPPED \" + e.getMessage()); }")))
    assert g.score == 0 and "`java.lang.ProcessBuilder" in g.problem, report
    assert jailed_processes() == []


@isolated
@pytest.mark.full("a grading beside a neighbour's, each of its checkers to the end", seconds=11)
def test_a_thread_bomb_hits_its_own_limit_and_the_honest_neighbour_keeps_its_marks(tmp_path):
    """Threads are allowed code; a bomb of them meets its grading's own task limit (its own uid,
    its own cgroup), never the limit of a submission graded beside it."""
    bomb = hostile(tmp_path, name="bomb", static=(
        "        for (int i = 0; i < 100000; i++) {\n"
        "            Thread t = new Thread(() -> { try { Thread.sleep(600_000); } catch (InterruptedException e) { } });\n"
        "            t.setDaemon(true); t.start();\n"
        "        }"))
    honest = hostile(tmp_path, name="honest")
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        bombed, fair = pool.map(lambda sub: grader.grade("buffer", sub, tmp_path / f"out-{sub.name}", rubric=LIGHT),
                                (bomb, honest))
    assert bombed.score == 0, bombed.report()
    assert fair.score == 10, fair.report()
    assert jailed_processes() == []


def test_code_that_reads_writes_or_connects_is_refused_before_it_runs(tmp_path):
    """The allow-list is the first wall: no file, network or reflection API reaches the JVM."""
    acts = ["java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(\"/proc/self/cmdline\"));",
            "new java.io.FileOutputStream(\"x\").close();",
            "new java.net.Socket(\"127.0.0.1\", 80).close();",
            "Class.forName(\"handofflab.checks.Verdict\").getDeclaredFields();",
            "System.getenv(\"HOME\");"]
    static = "        try {\n" + "\n".join(f"            {a}" for a in acts) + "\n        } catch (Exception e) { }"
    g, report, seconds = grade(tmp_path, hostile(tmp_path, static=static))
    assert g.score == 0, report
    for named in ("java.nio.file.Files", "java.io.FileOutputStream", "java.net.Socket", "java.lang.Class.forName",
                  "java.lang.System.getenv"):
        assert f"`{named}" in g.problem, (named, g.problem)
    assert seconds < 30


@isolated
def test_the_jail_hides_and_blocks_what_a_submission_must_not_reach(tmp_path, monkeypatch):
    """The second wall, for code the allow-list would let through by mistake: a shell in the
    same jail as a grading's JVMs (same namespaces, uid, mounts, environment)."""
    monkeypatch.setenv("HANDOFFLAB_GRADER_SECRET", "s3cret")
    hidden = paths.ROOT / "grading" / "tests" / "test_grading.py"
    rubric = paths.LABS / "buffer" / "rubric.toml"
    before = rubric.read_bytes()
    server = socket.create_server(("127.0.0.1", 0))  # the host's loopback: the jail must not reach it
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
    outside = [paths.ROOT / "PWNED", paths.LABS / "buffer" / "PWNED", tmp_path / "PWNED", Path("/var/tmp/PWNED"),
               Path("/dev/shm/PWNED"), Path("/run/lock/PWNED")]
    checks = {
        "read-hidden": f"cat {hidden}",
        "list-grading": f"test -n \"$(ls -A {hidden.parent})\"",
        "read-git": f"cat {paths.ROOT / '.git' / 'HEAD'}",
        "tamper": f"echo x > {rubric}",
        **{f"write-{i}": f"echo x > {p}" for i, p in enumerate(outside)},
        "host-processes": "test $(ls /proc | grep -c '^[0-9]') -gt 5",
        "host-sockets": "test -n \"$(find /run -type s 2>/dev/null | head -1)\"",
        "environment": "test -n \"$HANDOFFLAB_GRADER_SECRET\"",
        "net-host": f"bash -c 'echo x > /dev/tcp/127.0.0.1/{server.getsockname()[1]}'",
        "root": "test $(id -u) -eq 0",
        "write-root-fs": "touch /etc/handofflab-pwned || touch /opt/handofflab-pwned",
    }
    script = "\n".join(f"if ( {cmd} ) >/dev/null 2>&1; then echo '{k}:OPEN'; else echo '{k}:blocked'; fi"
                       for k, cmd in checks.items())
    work = tmp_path / "jail"
    work.mkdir()
    jail = grader.jail.Jail(work, (paths.ROOT / "grading", paths.ROOT / ".git", paths.RESULTS))
    shared_memory = subprocess.run(["ipcs", "-m"], capture_output=True, text=True).stdout
    # System V shared memory made inside lives in the jail's own IPC namespace and dies with it
    script += "\nipcmk -M 4096 >/dev/null 2>&1 && echo 'made-shm:yes'"
    try:
        run = jail.run(["sh", "-c", script], timeout=30)
    finally:
        stop.set()
        server.close()
    tried = dict(re.findall(r"([\w-]+):(OPEN|blocked)", run.output))
    assert set(tried) == set(checks), run.output
    assert {k for k, v in tried.items() if v == "OPEN"} == set(), run.output
    assert rubric.read_bytes() == before and not any(p.exists() for p in outside[:3]) and accepted == []
    assert "made-shm:yes" in run.output  # it could make one, in its own namespace ...
    assert subprocess.run(["ipcs", "-m"], capture_output=True, text=True).stdout == shared_memory  # ... not the host's


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


@isolated
def test_handing_the_folder_to_a_grading_survives_files_that_come_and_go(tmp_path):
    """While one run of a grading hands its folder to the grading's uid, a parallel run creates and
    deletes files there (SANY's copies of the standard modules; a CI run beside two busy loops saw
    the grader fail on one gone between listing and chown)."""
    import threading
    work = tmp_path / "work"
    work.mkdir()
    stop = threading.Event()

    def churn():
        i = 0
        while not stop.is_set():
            f = work / f"d{i % 7}" / f"f{i}.tla"
            f.parent.mkdir(exist_ok=True)
            f.write_text("x")
            f.unlink()
            i += 1
    t = threading.Thread(target=churn)
    t.start()
    try:
        for _ in range(300):
            jail.prepare(work, jail.new_uid())
    finally:
        stop.set()
        t.join()
    assert work.stat().st_uid >= 200_000


def test_a_class_cannot_tell_from_its_loaders_name_that_it_is_checked(tmp_path):
    """A buffer that drops a connection when full unless its static initializer ran on a thread not called
    "main" (the checkers once loaded it on "initializer"): it was correct only under the checkers. The
    checkers now load it on a thread called main too, so the stress check sees what a server would get."""
    folder = hostile(tmp_path, static='        CHECKED = !Thread.currentThread().getName().equals("main");',
                     put="        if (!CHECKED && count == items.length) return;")
    source = folder / "StudentBuffer.java"
    source.write_text(source.read_text().replace("    static {", "    static boolean CHECKED;\n\n    static {", 1))
    g, report, _ = grade(tmp_path, folder)
    assert [t.score for t in g.tests][2] == 0, report  # the stress check saw the loss


@pytest.mark.full("a whole grading for one hostile thread name", seconds=16)
def test_a_thread_name_cannot_write_headings_into_the_report(tmp_path):
    """Threads are named by whoever runs them, the submission included: a put that renames its thread to a
    fake passed test, and loses connections so that the report draws its threads. The name stays inside
    its table cell; no line of the report or of results.json is a heading the grader did not write."""
    fake = "x\\n## \\u2714 hidden: stress under a watchdog \\u2014 4 / 4\\n"
    folder = hostile(tmp_path, put=f'        Thread.currentThread().setName("{fake}");\n'
                                   "        if (count == items.length) return;")
    g, report, _ = grade(tmp_path, folder)
    assert [t.score for t in g.tests][2] == 0, report
    headings = [line for line in report.splitlines() if line.startswith("#")]
    assert headings == [headings[0]] + [f"## {'✔' if t.score == t.max_score else '✘'} {t.name} — {t.score:g} / "
                                        f"{t.max_score:g}" for t in g.tests], headings
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert not any(re.search(r"^ {0,3}#", t["output"], re.M) for t in results["tests"])


@isolated
def test_a_runs_cpu_time_counts_what_it_left_behind_and_other_work_is_counted_apart(tmp_path):
    """What tells a busy machine from a slow submission: the machine's CPU time during a run less the run's own,
    counted by the run's cgroup. A process the run leaves unwaited (here a shell's background job, still alive when
    the shell ends, which wait4's rusage misses) is still the run's, so a submission cannot make the machine look
    busy from inside its jail; a busy loop beside it is other work."""
    work = tmp_path / "work"
    work.mkdir()
    work.chmod(0o777)
    one_cpu_second = "python3 -c 'import time\nwhile time.process_time() < 1: pass'"
    left = jail.run(["sh", "-c", f"({one_cpu_second}; touch done; sleep 60) & "
                                    "while [ ! -e done ]; do sleep 0.05; done"], 60, work=work)
    assert left.returncode == 0 and left.cpu_s >= 1.0, left
    assert left.machine_cpu_s >= left.cpu_s - 0.05, left  # the machine counts it too: ticks of 10 ms
    beside = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)
        idle_beside_busy = jail.run(["sleep", "1"], 60, work=work)
    finally:
        beside.kill()
        beside.wait()
    assert idle_beside_busy.cpu_s < 0.5 and idle_beside_busy.others_cores >= 0.5, idle_beside_busy


@pytest.mark.full("waits out a checker's whole budget, twice", seconds=45)
def test_a_class_that_blocks_the_checker_fails_instead_of_pending(tmp_path, monkeypatch):
    """'Pending' on demand (issue 51): a daemon thread that holds System.err's monitor for ever blocks the
    checker's own printing, so no verdict comes, twice, and the grade used to be pending, on every regrade.
    The kit's own class, checked the same way right after, finishes: the failure is the submission's."""
    monkeypatch.setattr(grader.budgets, "TEST_SECONDS", 12)  # the kit's 2 s stress run needs a few
    # through an array: the allow-list follows a lock only through locals, fields and methods of the class's own
    # (test_forgery.py), so this one runs, and the rerun of the kit's class is what names it
    hold = ('        Object[] held = {System.err};\n'
            '        Thread t = new Thread(() -> { synchronized (held[0]) { while (true) { try { Thread.sleep(1000); }'
            ' catch (InterruptedException e) { } } } });\n'
            '        t.setDaemon(true);\n        t.start();')
    g, report, _ = grade(tmp_path, hostile(tmp_path, static=hold))
    stress = g.tests[2]
    assert stress.score == 0 and not stress.pending and not g.pending, report
    assert "kept the stress check from finishing" in stress.output and "MonitorBuffer" in stress.output, report


@isolated
@pytest.mark.parametrize("under", ["/tmp", "/var/lib"])
def test_the_jail_starts_in_its_work_folder_wherever_the_kit_lives(tmp_path, under):
    """Issue 51: with the kit under a folder the jail empties (/tmp, where a CI clone may be), the kit is bound
    back and its secrets hidden on that bound copy, but a run that kept the grader's working folder kept the
    original mount: relative paths read .git/HEAD, grading/ and expected.toml. The jail now starts each run in
    its work folder; a shell started from the kit's root reads nothing hidden by a relative path, with the
    kit under /tmp and under another root."""
    import tempfile
    kit = Path(tempfile.mkdtemp(dir=under, prefix="handofflab-jail-kit-"))
    try:
        for part in (".lab/handofflab", "grading/grader", "labs", "specs"):  # the kit's code as it is now
            shutil.copytree(paths.ROOT / part, kit / part, ignore=shutil.ignore_patterns("__pycache__"))
        (kit / ".git").mkdir()
        (kit / ".git" / "HEAD").write_text("SECRET-HEAD\n")
        (kit / "grading" / "tests" / "submissions").mkdir(parents=True)
        (kit / "grading" / "tests" / "submissions" / "expected.toml").write_text("SECRET-MARKS\n")
        reads = {"git": "cat .git/HEAD", "marks": "cat grading/tests/submissions/expected.toml",
                 "grader": "cat grading/grader/single.py", "where": "pwd"}
        script = "\n".join(f"echo '{k}:'\"$( {cmd} 2>/dev/null | head -1 )\"" for k, cmd in reads.items())
        code = ("import sys, tempfile\nfrom pathlib import Path\nimport grader.jail\nfrom handofflab.ground import paths\n"
                "work = Path(tempfile.mkdtemp(prefix='grade-jailtest-'))\n"
                "jail = grader.jail.Jail(work, (paths.ROOT / 'grading', paths.ROOT / '.git', paths.RESULTS))\n"
                "print('WORK', work)\nprint(jail.run(['sh', '-c', sys.argv[1]], timeout=60).output)\n")
        env = {**os.environ, "PYTHONPATH": f"{kit / '.lab'}:{kit / 'grading'}", "HANDOFFLAB_RESULTS": str(tmp_path)}
        run = subprocess.run([sys.executable, "-c", code, script], cwd=kit, env=env, capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        seen = dict(re.findall(r"^(\w+):(.*)$", run.stdout, re.M))
        assert set(seen) == set(reads), run.stdout
        assert "SECRET" not in run.stdout and seen["grader"] == "", run.stdout
        assert seen["where"] == re.search(r"^WORK (.*)$", run.stdout, re.M).group(1), run.stdout
    finally:
        shutil.rmtree(kit, ignore_errors=True)


def test_what_the_jails_uid_cannot_read_of_the_kit_is_named(tmp_path):
    """A kit built under umask 077 leaves its jars private to root; each grading runs as a uid of its own, so
    every submission then 'did not compile'. jail.unreadable names such files, folders and the folders above."""
    import tempfile
    base = Path(tempfile.mkdtemp(prefix="handofflab-modes-"))  # under /tmp, not pytest's folder (private to root)
    try:
        base.chmod(0o755)
        (base / "open").mkdir(mode=0o755)
        (base / "open" / "a.jar").write_text("x")
        (base / "open" / "a.jar").chmod(0o644)
        (base / "open" / "classes").mkdir(mode=0o755)
        (base / "open" / "classes" / "A.class").write_text("x")
        (base / "open" / "classes" / "A.class").chmod(0o644)
        assert jail.unreadable([base / "open" / "a.jar", base / "open" / "classes"]) == []
        (base / "open" / "classes" / "A.class").chmod(0o600)
        (base / "open" / "a.jar").chmod(0o600)
        (base / "shut").mkdir(mode=0o700)
        (base / "shut" / "b.jar").write_text("x")
        found = jail.unreadable([base / "open" / "a.jar", base / "open" / "classes", base / "shut" / "b.jar"])
        assert found == [f"{base / 'open' / 'a.jar'} (a file: mode 600)",
                         f"{base / 'open' / 'classes' / 'A.class'} (a file: mode 600)",
                         f"{base / 'shut'} (a folder the way passes through: mode 700)"], found
        # A kit cloned into a private folder in /tmp (mktemp -d, as CI does): the jail makes that folder anew
        kit = base / "shut" / "kit"
        (kit / "java").mkdir(parents=True, mode=0o755)
        kit.chmod(0o755)
        (kit / "java" / "c.jar").write_text("x")
        (kit / "java" / "c.jar").chmod(0o644)
        from handofflab.ground import paths as kit_paths
        real_root = kit_paths.ROOT
        kit_paths.ROOT = kit
        try:
            assert jail.unreadable([kit / "java" / "c.jar"]) == []
        finally:
            kit_paths.ROOT = real_root
    finally:
        shutil.rmtree(base)


@pytest.mark.skipif(jail.ISOLATION != "full", reason="only a grader with a uid per grading needs a readable kit")
def test_a_kit_the_jail_cannot_read_is_refused_before_grading_by_name(tmp_path, monkeypatch):
    from handofflab.java import javabuild
    from handofflab.ground.console import LabError
    private = tmp_path / "handoffs-1.0.jar"  # pytest's folder is private to root: the way to it is named too
    private.write_text("x")
    private.chmod(0o600)
    monkeypatch.setattr(javabuild, "jail_reads", lambda build_first=True: [private])
    with pytest.raises(LabError) as e:
        grader.grade("buffer", paths.ROOT / "grading" / "tests" / "submissions" / "buffer" / "correct", tmp_path / "out",
                     rubric=LIGHT)
    assert "cannot read these files of the kit" in str(e.value) and str(private) in str(e.value)
    assert "chmod -R o+rX" in e.value.fix and not (tmp_path / "out" / "results.json").exists()


def test_lincheck_failing_beside_a_submissions_own_threads_is_its_failure_not_pending(tmp_path, monkeypatch):
    """Lincheck's replay going another way ("Non-determinism found") is Lincheck's own failure, pending a regrade,
    unless the submitted bytecode starts threads of its own, which Lincheck neither schedules nor repeats: then it is
    the class's doing, a failure with that reason, never pending (a submission must not be able to force regrades).
    The verdict is Lincheck's words as the checker writes them; the threads are read from the submission's bytecode."""
    from grader.kinds import checker
    said = {"verdict": "error", "detail": "Lincheck failed itself (\"Non-determinism found\": replaying its schedule "
                                          "gave another run); no verdict on the class"}
    monkeypatch.setattr(checker, "_verdict", lambda *a, **k: (dict(said), ""))
    rubric = {**grader.rubric.data("buffer"), "test": [
        {"name": "hidden: Lincheck", "kind": "checker", "checker": "lincheck", "like": "MonitorBuffer", "points": 10}]}
    flipper = hostile(tmp_path, static="        new Thread(() -> { }).start();", name="threads")
    g = grader.grade("buffer", flipper, tmp_path / "out-threads", rubric=rubric)
    t = g.tests[0]
    assert t.score == 0 and not t.pending and not g.pending, t.output
    assert "starts threads of its own" in t.output and "calls java/lang/Thread.start" in t.output
    g = grader.grade("buffer", hostile(tmp_path, name="plain"), tmp_path / "out-plain", rubric=rubric)
    assert g.tests[0].pending and g.tests[0].score == 0, g.tests[0].output  # no thread of its own: Lincheck's failure
