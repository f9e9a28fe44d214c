"""What a run's threads asked of the processors, read from outside the run: the kernel's scheduler statistics
(/proc/PID/task/TID/schedstat: time on a CPU, time waiting in a run queue) of every thread of the run's session,
sampled by the grader. A thread that waits for a lock, a condition or a wake-up that never comes adds nothing;
one that computes, however slowly a busy machine lets it, adds a second per second of wall time. So a time-out
in which the run asked for nothing is a hang, whatever the machine's load, and the submission cannot say
otherwise: the kernel counts, the grader reads."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

PERIOD = 0.2        # seconds between samples
IDLE_CORES = 0.05   # asking for less than this share of one core (JVM housekeeping) is asking for nothing
PROC = Path("/proc")


def available() -> bool:
    """Whether this kernel keeps per-thread scheduler statistics (CONFIG_SCHED_INFO)."""
    return (PROC / str(os.getpid()) / "task" / str(threading.get_native_id()) / "schedstat").exists()


class Watch:
    """Samples, every PERIOD s while a run runs, the runnable seconds (on a CPU or waiting for one) of every thread
    of the session `session`; a thread's last sample is kept after it ends."""

    def __init__(self, session: int):
        self.session = session
        self.series: list[tuple[float, float]] = []   # (monotonic time, runnable seconds of all threads so far)
        self._seen: dict[tuple[str, str], float] = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> Watch:
        self._thread.start()
        return self

    def stop(self) -> list[tuple[float, float]]:
        self._done.set()
        self._thread.join()
        return self.series

    def _loop(self) -> None:
        while True:
            self.sample()
            if self._done.wait(PERIOD):
                return

    def sample(self) -> None:
        for pid in os.listdir(PROC):
            if pid.isdigit() and _session(pid) == self.session:
                try:
                    tids = os.listdir(PROC / pid / "task")
                except OSError:
                    continue  # it ended meanwhile
                for tid in tids:
                    try:
                        on_cpu, waiting = (PROC / pid / "task" / tid / "schedstat").read_text().split()[:2]
                    except (OSError, ValueError):
                        continue
                    self._seen[pid, tid] = (int(on_cpu) + int(waiting)) / 1e9
        self.series.append((time.monotonic(), sum(self._seen.values())))


def living(session: int) -> list[int]:
    """The processes of `session` that still exist and are not zombies: a process sent SIGKILL is gone only once
    the kernel has torn it down, which on a busy machine can take a while after its parent was reaped."""
    return [int(pid) for pid in os.listdir(PROC)
            if pid.isdigit() and (stat := _stat(pid)) and int(stat[3]) == session and stat[0] not in "ZX"]


def _session(pid: str) -> int | None:
    stat = _stat(pid)
    return int(stat[3]) if stat else None


def _stat(pid: str) -> list[str] | None:
    """The fields of /proc/PID/stat after the name (state, ppid, pgrp, session, …), or None if it is gone."""
    try:
        text = (PROC / pid / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()   # the name may hold spaces and parentheses; the fields after it not
    return fields if len(fields) > 3 else None


def longest_idle(series: list[tuple[float, float]]) -> float:
    """The longest stretch of wall time, in seconds, over which every sample shows the run's threads together asking
    for less than IDLE_CORES of a core: every thread blocked, none running or ready to run."""
    longest = current = 0.0
    for (t0, d0), (t1, d1) in zip(series, series[1:]):
        if d1 - d0 <= IDLE_CORES * (t1 - t0):
            current += t1 - t0
            longest = max(longest, current)
        else:
            current = 0.0
    return longest
