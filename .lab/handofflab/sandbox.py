"""Runs untrusted code (a student's submission) so that it cannot take the
grader down: its own process group, a wall-clock limit that kills the whole
group, CPU and memory limits, and a cap on the output kept.  The fuller
sandbox (no network, no reading hidden tests) builds on this."""
from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass

OUTPUT_CAP = 64 * 1024   # bytes of output kept for feedback


@dataclass
class Run:
    returncode: int | None   # None: killed at the time limit
    output: str
    seconds: float
    timed_out: bool
    truncated: bool


def _limits(cpu_seconds: int, memory_bytes: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024 * 1024,) * 2)
    return apply


def run(cmd: list[str], timeout: float, cwd: str | None = None, env: dict | None = None,
        cpu_seconds: int = 300, memory_bytes: int = 8 * 1024 ** 3) -> Run:
    """Run cmd in a new session; at the time limit kill its whole process group."""
    with tempfile.TemporaryFile() as out:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, preexec_fn=_limits(cpu_seconds, memory_bytes))
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the group: threads, children, forks
            except ProcessLookupError:
                pass
            proc.wait()
        seconds = time.monotonic() - start
        size = out.seek(0, os.SEEK_END)
        out.seek(0)
        data = out.read(OUTPUT_CAP)
    text = data.decode("utf-8", "replace")
    if size > OUTPUT_CAP:
        text += f"\n[… output cut: {size} bytes in all, the first {OUTPUT_CAP} kept]"
    return Run(None if timed_out else proc.returncode, text, seconds, timed_out, size > OUTPUT_CAP)
