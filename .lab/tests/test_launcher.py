"""The entry point: a missing system tool is a clear error naming the fix,
and `./lab doctor` lists every tool."""
import os
import subprocess
import sys
import zipfile

import pytest
from pathlib import Path

from handofflab.ground import paths


def _path_without(tmp_path: Path, *missing: str) -> str:
    """A PATH with every command this machine has except `missing`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for d in os.environ["PATH"].split(os.pathsep):
        for exe in Path(d).glob("*") if Path(d).is_dir() else []:
            if exe.name not in missing and not (bin_dir / exe.name).exists():
                (bin_dir / exe.name).symlink_to(exe)
    return str(bin_dir)


def _lab(args, path):
    return subprocess.run([str(paths.ROOT / "lab"), *args], capture_output=True, text=True,
                          env={**os.environ, "PATH": path}, timeout=600)


def test_no_mvn_names_the_debian_package(tmp_path):
    run = _lab(["doctor"], _path_without(tmp_path, "mvn"))
    assert run.returncode == 2
    assert "'mvn' is missing" in run.stderr and "apt-get install maven" in run.stderr
    assert "Traceback" not in run.stderr


def test_no_java_names_the_debian_package(tmp_path):
    run = _lab(["doctor"], _path_without(tmp_path, "java"))
    assert run.returncode == 2 and "openjdk-17-jdk-headless" in run.stderr


def test_doctor_lists_every_tool_with_a_version():
    run = _lab(["doctor"], os.environ["PATH"])
    assert run.returncode in (0, 2), run.stderr
    rows = {line.split("│")[1].strip(): line for line in run.stdout.splitlines() if line.count("│") > 3}
    for tool in ("java", "mvn", "python", "TLC", "mdbook", "mdbook-katex", "JPF", "toxiproxy"):
        assert tool in rows, f"doctor does not list {tool}"
    for required in ("java", "mvn", "python"):  # this machine runs the tests, so it has them
        assert " ok " in rows[required], rows[required]
    from grader import jail
    from handofflab.java import javabuild
    if jail.ISOLATION == "full" and javabuild.STAMP.exists():  # this kit grades: its uid must read the jars
        readable = next(line for name, line in rows.items() if name.startswith("kit readable"))  # the name may wrap
        assert " ok " in readable, readable
    assert "\x1b[" not in run.stdout  # before: `mvn -v`'s colour code leaked into the version
    for optional in ("JPF", "chromium", "jupyterlab", "toxiproxy"):  # before: an absent optional tool was shown as "ok"
        found = rows[optional].split("│")[3].strip()
        assert (found != "—") == (" ok " in rows[optional]) and (found != "—" or "absent (optional)" in rows[optional])


def test_an_unknown_command_is_a_usage_error_not_a_traceback():
    run = _lab(["no-such-command"], os.environ["PATH"])
    assert run.returncode != 0 and "No such command" in (run.stdout + run.stderr)
    assert "Traceback" not in run.stderr


BAD_INPUTS = ["grade", "grade nolab x", "grade buffer /nonexistent", "bench servers --reps -1", "serve NoDesign",
              "check java NoSuch", "check specs NoSuch", "verify-verdicts --runs 0", "export-gradescope nolab",
              "grade-batch buffer /nonexistent", "notebooks nosuch", "client 127.0.0.1 4294975376 1 1",
              "client 127.0.0.1 80 4294967297 1", "client 127.0.0.1 80 1 1 --timeout-ms 2147483648",
              "client 127.0.0.1 80 1 1 --idle-ms -1", "client 127.0.0.1 80 1 x", "bench heap --rounds 1", "bench heap --design NoDesign",
              "bench dht --latency 1,x", "bench dht --latency -1", "bench dht --latency 0,0", "bench dht --jitter 1",
              "bench dht --latency 1 --jitter 2",
              "bench handoffs --workers x", "check java --replay /nonexistent.json", "check java --record-jpf NoSuch",
              "hint nolab", "hint buffer 99", "check-lab nolab x", "check-lab buffer /nonexistent",
              "release /tmp/handofflab-release-x", "release /tmp/x --lab nolab", "release . --lab buffer",
              "release /tmp/x --lab buffer --lab mutants"]


@pytest.mark.parametrize("args", BAD_INPUTS)
def test_bad_input_is_named_with_the_command_people_type(args):
    run = _lab(args.split(), os.environ["PATH"])
    out = run.stdout + run.stderr
    assert run.returncode == 2, out
    assert "Traceback" not in out and "python -m" not in out, out
    assert "Fix:" in out or "Usage: ./lab" in out, out


def test_hints_come_one_at_a_time(tmp_path):
    env = os.environ["PATH"]
    os.environ["HANDOFFLAB_RESULTS"], before = str(tmp_path), os.environ.get("HANDOFFLAB_RESULTS")
    try:
        said = [_lab(["hint", "buffer"], env).stdout for _ in range(5)] + [_lab(["hint", "buffer", "--reset"], env).stdout]
    finally:
        os.environ.pop("HANDOFFLAB_RESULTS") if before is None else os.environ.__setitem__("HANDOFFLAB_RESULTS", before)
    assert [s.split("(")[0].strip() for s in said[:4]] == [f"Hint {n} of 4" for n in range(1, 5)]
    assert said[4].startswith("All 4 hints of buffer are shown") and said[5].startswith("Hint 1 of 4")


def test_the_suite_runs_on_every_core_unless_told_otherwise(monkeypatch):
    from handofflab.commands import testrun
    monkeypatch.setattr(testrun.os, "cpu_count", lambda: 2)
    monkeypatch.setattr("grader.batch.jails_in_memory", lambda: 64)
    # one more than the cores: each waits on JVMs, TLC and servers for part of its time
    assert testrun._workers(()) == 3 and testrun._workers(("-k", "book")) == 3
    assert testrun._workers(("-n", "0")) is None and testrun._workers(("-n4",)) is None  # the user's -n stands
    assert testrun._workers(("-p", "no:xdist")) is None
    monkeypatch.setattr(testrun.os, "cpu_count", lambda: 1)
    assert testrun._workers(()) == 2
    monkeypatch.setattr("grader.batch.jails_in_memory", lambda: 1)
    assert testrun._workers(()) is None  # memory for one grading jail: one process


def test_a_jvm_the_kit_starts_gets_a_temporary_folder_that_goes_with_it():
    # Lincheck leaves a jar in java.io.tmpdir at each run: thousands a day in /tmp, were it /tmp
    from handofflab.ground import toolchain
    proc = toolchain.run(["java", "-XshowSettings:properties", "-version"], "java", "install a JDK")
    tmpdir = next(line.split("=", 1)[1].strip() for line in proc.stderr.splitlines()
                  if line.strip().startswith("java.io.tmpdir"))
    assert Path(tmpdir).name.startswith("handofflab-jvm-"), tmpdir
    assert not Path(tmpdir).exists(), f"{tmpdir} outlived the JVM"


def test_the_copy_knows_every_command_of_the_kit():
    """studentcopy.py keeps the kit's command names itself (the CLI imports it); they must be the CLI's, or a
    book page naming a new command would lose its "full kit" note in a student copy."""
    from handofflab.commands import studentcopy
    from handofflab.commands.cli import cli
    assert set(studentcopy.KIT_COMMANDS) == set(cli.commands)
    assert set(studentcopy.STUDENT_COMMANDS) <= set(cli.commands)


def test_processes_that_find_tlc_missing_at_once_fetch_it_once_and_whole(tmp_path, monkeypatch):
    """verify-verdicts' claims and pytest's workers may need TLC at the same moment in a fresh clone: one
    fetches it (into a folder of its own, moved in whole), the others wait and find it there. Before the lock,
    two Maven copies into one jar failed a fresh clone's CI."""
    import concurrent.futures
    from handofflab.ground import toolchain
    monkeypatch.setattr(paths, "TOOLS", tmp_path)
    monkeypatch.setattr(toolchain, "TLA_DIR", tmp_path / "tla")
    fetches = []
    real_mvn = toolchain.mvn
    monkeypatch.setattr(toolchain, "mvn", lambda *a, **k: (fetches.append(a), real_mvn(*a, **k))[1])
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        jars = list(pool.map(lambda _: toolchain.tlc_jar(), range(4)))
    assert len(fetches) == 1 and len(set(jars)) == 1 and jars[0].parent == tmp_path / "tla"
    with zipfile.ZipFile(jars[0]) as z:  # whole: a torn copy is no zip
        assert "tlc2/TLC.class" in z.namelist()
    assert [p.name for p in (tmp_path / "tla").iterdir() if p.name.startswith(".fetching")] == []


def test_a_new_clone_installs_mdbook_katex_from_the_machines_cargo_build(tmp_path, monkeypatch):
    """cargo's build folder is the machine's, shared by every clone (as ~/.m2 is Maven's): a fresh clone then
    installs in seconds what an earlier one compiled (measured: 193 s cold, 2.3 s warm), and keeps nothing of it."""
    import shutil

    from handofflab.ground import toolchain
    if not shutil.which("cargo"):
        pytest.skip("no cargo here (the kit's prerequisites name it)")
    monkeypatch.setattr(toolchain, "CARGO_ROOT", tmp_path / "cargo")
    seen = []
    monkeypatch.setattr(toolchain, "run", lambda cmd, what, fix, env=None, **kw: seen.append((cmd, env)))
    toolchain.mdbook_katex()
    (cmd, env), = seen
    assert cmd[:3] == ["cargo", "install", "mdbook-katex"] and str(tmp_path / "cargo") in cmd
    assert env["CARGO_TARGET_DIR"] == str(toolchain.CARGO_BUILD) and not toolchain.CARGO_BUILD.is_relative_to(paths.ROOT)


def test_programs_run_beside_a_block_end_with_it_however_it_ends():
    import signal
    from handofflab.ground import toolchain
    from handofflab.ground.console import LabError
    stubborn = [sys.executable, "-c", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                                      "print('up', flush=True)\ntime.sleep(600)"]
    with pytest.raises(RuntimeError):
        with toolchain.run_beside([stubborn, [sys.executable, "-c", "import time; time.sleep(600)"]], "two sleepers",
                                  "none", stop=signal.SIGTERM, grace=1) as procs:
            assert procs[0].stdout.readline() == "up\n"
            raise RuntimeError("the block failed")
    # the one that ignores SIGTERM was killed after its grace, the other ended at SIGTERM
    assert [p.returncode for p in procs] == [-signal.SIGKILL, -signal.SIGTERM]
    with pytest.raises(LabError, match="the missing one: `no-such-tool-here` is not installed"):
        with toolchain.run_beside([["no-such-tool-here"]], "the missing one", "install it"):
            pass
