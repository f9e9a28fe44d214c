"""A run's cgroups: where the host lets the grader write /sys/fs/cgroup, one group per run caps the memory and
the tasks of all its processes together (those it leaves behind too) and counts their CPU time. The jail
puts each run in its groups before exec; elsewhere the per-process rlimits remain."""
from __future__ import annotations

import os
from pathlib import Path

from grader import budgets


class CGroups:
    """One cgroup per run in each writable v1 hierarchy (memory, pids, and cpuacct to count its CPU time) or in
    v2: total memory, tasks and CPU time of the run, all its processes together, those it left behind too. Empty
    where the host does not allow it (a container without write access to /sys/fs/cgroup): then the per-process
    limits remain, and its CPU time is what wait4 reports."""
    ROOT = Path("/sys/fs/cgroup")

    def __init__(self, name: str):
        self.groups: list[Path] = []
        self.usage: Path | None = None  # the file that counts the run's CPU time
        limits = {"memory": ("memory.limit_in_bytes", str(budgets.MEMORY_TOTAL)), "pids": ("pids.max", str(budgets.NPROC))}
        unified = self.ROOT / "cgroup.controllers"
        try:
            if unified.exists():
                group = self.ROOT / name
                group.mkdir()
                self.groups.append(group)
                (group / "memory.max").write_text(str(budgets.MEMORY_TOTAL))
                (group / "pids.max").write_text(str(budgets.NPROC))
                self.usage = group / "cpu.stat"
                return
            for controller, (knob, value) in limits.items():
                group = self.ROOT / controller / name
                group.mkdir()
                self.groups.append(group)
                (group / knob).write_text(value)
        except OSError:
            self.close()
            return
        try:  # counting only: a host without the hierarchy still gets the limits
            group = self.ROOT / "cpuacct" / name
            group.mkdir()
            self.groups.append(group)
            self.usage = group / "cpuacct.usage"
        except OSError:
            pass

    def cpu_seconds(self) -> float | None:
        """The CPU time every process of the run has used, or None where it is not counted."""
        try:
            text = self.usage.read_text() if self.usage else ""
        except OSError:
            return None
        if self.usage and self.usage.name == "cpu.stat":  # v2: "usage_usec N" among its lines
            return next((int(line.split()[1]) / 1e6 for line in text.splitlines() if line.startswith("usage_usec ")),
                        None)
        return int(text) / 1e9 if text.strip().isdigit() else None

    def close(self) -> None:
        for group in self.groups:
            try:
                group.rmdir()
            except OSError:
                pass
        self.groups, self.usage = [], None


def available() -> bool:
    """Can this process make a cgroup (the host's /sys/fs/cgroup writable)?"""
    probe = CGroups(f"handofflab-probe-{os.getpid()}")
    ok = bool(probe.groups)
    probe.close()
    return ok
