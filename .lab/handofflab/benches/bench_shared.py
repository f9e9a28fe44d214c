"""What every `./lab bench` shares: one bench measuring at a time, a benchmark JVM's progress streamed
while its rows go to a CSV, and matplotlib drawing to files."""
from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from handofflab.ground import paths, toolchain
from handofflab.ground.console import LabError, warn


@contextlib.contextmanager
def alone(command: str):
    """A benchmark's measuring, one at a time: a second `./lab bench X` while one measures would overwrite its CSV and
    share its cores, so that neither measured the designs. Entered once the arguments are checked, so a bad one is
    still named at once; the lock file sits beside the results folder, which some runs empty."""
    paths.RESULTS.joinpath("bench").mkdir(parents=True, exist_ok=True)
    with open(paths.RESULTS / "bench" / f".{command.replace(' ', '-')}.running", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LabError(f"another `./lab {command}` is measuring on this kit now",
                           "wait for it to end: two at once would overwrite each other's results and share the cores, "
                           "so neither would measure the designs") from None
        yield


def stream(cmd: list[str], raw: Path, why_nothing: str, cpus: int | None = None) -> bool:
    """Runs a benchmark JVM that writes `raw` and prints a progress line per run; True if it stopped
    early (what it measured is kept, and the summary says PARTIAL). `cpus`: run it on that many of
    this process's CPUs only."""
    code = toolchain.run_streaming(cmd, lambda line: print(line.rstrip(), flush=True), cpus)  # a line per run
    if code != 0:
        warn(f"the benchmark JVM exited with code {code}: the runs measured so far are kept in {raw}, "
             "and the summary is marked PARTIAL")
    if not raw.exists():
        raise LabError("the benchmark measured nothing", why_nothing)
    return code != 0


def pyplot():
    """matplotlib's pyplot, drawing to files (no display), its cache inside the kit."""
    os.environ.setdefault("MPLCONFIGDIR", str(paths.ROOT / ".tools" / "matplotlib"))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)
