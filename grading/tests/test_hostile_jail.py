"""Hostile submissions against the jail's walls: reading, writing or connecting where it must not, links, files
that come and go, a loader's or a thread's name, the CPU time it leaves behind, a kit the jail's uid cannot read.
Nothing escapes, and what is refused is named. test_hostile_runs.py holds what a submission does as it runs."""
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

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from hostilegrading import LIGHT, grade, hostile, isolated  # noqa: E402


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
    assert work.stat().st_uid >= jail.UID_BASE


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


@isolated
def test_a_run_killed_at_its_limit_returns_only_once_all_it_started_is_gone(tmp_path):
    """At the time limit the run's group gets SIGKILL and its leader (unshare) is reaped at once; the rest, killed with
    it or by the PID namespace as its first process ends, can take a moment longer to be torn down. The run waits
    for its whole session. The race is not forced here (two 1 GiB processes beside two busy loops did not lose it
    with the wait removed): this holds the rule."""
    work = tmp_path / "work"
    work.mkdir()
    work.chmod(0o777)
    # Freeing a gigabyte of touched memory takes the kernel a moment after the SIGKILL.
    big = "python3 -c 'import time\nb = bytes(1) * (1 << 30)\nopen(\"ready\", \"w\").close()\ntime.sleep(600)'"
    before = set(jail.ISSUED)
    run = jail.run(["sh", "-c", f"{big} & {big}; sleep 600"], 8, work=work)
    assert run.timed_out, run
    uids = jail.ISSUED - before
    ps = subprocess.run(["ps", "-eo", "uid=,stat=,args="], capture_output=True, text=True).stdout.splitlines()
    assert [l for l in ps if int(l.split()[0]) in uids and not l.split()[1].startswith("Z")] == []


@pytest.mark.parametrize("pid_max", [32_768, 4_194_304])
def test_two_graders_alive_at_once_never_hand_out_one_uid(pid_max):
    """Each process's uids come from a block its pid owns: neighbours' blocks never meet, however many gradings each
    runs (the blocks were once 64 uids from pid % 4096, and a test worker past its 64th grading issued its neighbour's
    uids: a hostile test then found the other worker's javac under a uid of its own), and the last fits uid_t."""
    blocks = [jail._uid_block(pid, pid_max) for pid in (1, 2, 4096 + 1, pid_max - 1)]
    assert all(len(b) >= 1000 for b in blocks)
    assert all(set(a).isdisjoint(b) for i, a in enumerate(blocks) for b in blocks[i + 1:])
    assert blocks[-1][-1] < 2 ** 32 - 2  # 2**32 - 1 is -1, "no uid", to the kernel
    issued = [jail.new_uid() for _ in range(len(jail._BLOCK) + 3)]
    assert set(issued) <= set(jail._BLOCK) and issued[-1] == issued[2]  # past the block: its own first ones again
