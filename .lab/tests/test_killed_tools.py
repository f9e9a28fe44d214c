"""A tool the kit runs that is killed from outside (TLC, a checker's JVM, a notebook's Jupyter kernel: the out-of-memory
killer, a user) ends the command with one clear error and its fix, never a Python traceback. Each test runs the real
`./lab` command and kills the real process it starts, every time it appears (a busy machine retries a kernel once)."""
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from handofflab.ground import paths


def _descendants(root: int) -> list[tuple[int, str]]:
    """(pid, command line) of every process below `root`, from /proc."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue  # ended while we looked
            children.setdefault(ppid, []).append(int(d.name))
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            try:
                found.append((pid, (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()))
            except OSError:
                continue
            todo.append(pid)
    return found


@pytest.mark.parametrize("args, pattern, what", [
    (["check", "specs", "ParallelHashTable"], "tlc2.TLC", "ParallelHashTable: TLC was stopped by SIGKILL"),
    (["check", "java", "SinglePassPht"], "handofflab.checks.Main", "lincheck on SinglePassPht was stopped by SIGKILL"),
    (["notebooks", "pht_conflicts"], "ipykernel", "notebook pht_conflicts.py: the Jupyter kernel did not start"),
], ids=["TLC", "JVM", "kernel"])
def test_a_killed_tool_is_one_clear_error_and_its_fix(args, pattern, what):
    lab = subprocess.Popen([str(paths.ROOT / "lab"), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kills, deadline = 0, time.monotonic() + 600
    try:
        while lab.poll() is None and time.monotonic() < deadline:
            for pid, command in _descendants(lab.pid):
                if pattern in command:
                    os.kill(pid, signal.SIGKILL)
                    kills += 1
            time.sleep(0.02)
        out, err = lab.communicate(timeout=60)
    finally:
        lab.kill()
    assert kills >= 1, f"no process matching {pattern!r} was seen: {out[-2000:]}{err[-2000:]}"
    assert lab.returncode == 2, (lab.returncode, out[-2000:], err[-2000:])  # the kit's exit code for an error
    said = out + err
    assert f"✘ {what}" in said and "Fix:" in said, said[-3000:]
    assert "Traceback" not in said and "Exception ignored" not in said, said[-3000:]


def _age(pid: int) -> float:
    """Seconds since process `pid` started (0 if it is gone)."""
    try:
        start = int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return 0.0
    return uptime - start / os.sysconf("SC_CLK_TCK")


# `./lab book` and `./lab release` run a notebook only when its rendering is missing: one is moved aside for the run.
@pytest.mark.xdist_group("source-tree")  # on the book's worker: nothing else reads the renderings meanwhile
@pytest.mark.full("runs ./lab book and ./lab release up to a notebook, whose kernel it kills (about 30 s each)",
                  seconds=30)
@pytest.mark.parametrize("command", ["book", "release"])
def test_a_kernel_killed_mid_run_ends_book_and_release_with_one_clear_error(command, tmp_path):
    from handofflab.docs import notebooks
    args = ["book"] if command == "book" else ["release", str(tmp_path / "copy"), "--lab", "pht"]
    moved = notebooks.RENDERED / "pht_conflicts.md"
    aside = tmp_path / "pht_conflicts.md"
    if moved.exists():
        moved.rename(aside)
    lab = subprocess.Popen([str(paths.ROOT / "lab"), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kills, deadline = 0, time.monotonic() + 900
    try:
        while lab.poll() is None and time.monotonic() < deadline:
            for pid, cmd in _descendants(lab.pid):
                if "ipykernel" in cmd and _age(pid) > 2:  # mid-run: a kernel that has started, every time
                    os.kill(pid, signal.SIGKILL)
                    kills += 1
            time.sleep(0.05)
        out, err = lab.communicate(timeout=60)
    finally:
        lab.kill()
        if aside.exists() and not moved.exists():
            aside.rename(moved)
    said = out + err
    assert kills >= 1, f"no kernel was seen: {said[-3000:]}"
    assert lab.returncode == 2, (lab.returncode, said[-3000:])  # the kit's exit code for an error; 1 is a check's catch
    assert "✘ notebook " in said and "the Jupyter kernel" in said and "Fix:" in said, said[-3000:]
    assert "Traceback" not in said and "Exception ignored" not in said, said[-3000:]
