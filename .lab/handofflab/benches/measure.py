"""Runs one of the kit's Java measurement programs (java/benchmarks) for a
notebook and reads the CSV it prints, so every notebook launches the real
Java code the same way."""
from __future__ import annotations

import io

from handofflab.java import javabuild
from handofflab.ground import toolchain
from handofflab.ground.console import LabError


def java_csv(program: str, *args: object, timeout: int = 300):
    """`java handofflab.benchmarks.PROGRAM ARGS...`; its standard output as a DataFrame.
    A non-zero exit (for the concurrent modes: a connection not taken exactly once) is an error."""
    import pandas as pd

    cmd = ["java", "-cp", javabuild.classpath("benchmarks"), f"handofflab.benchmarks.{program}", *map(str, args)]
    run = toolchain.run(cmd, f"{program} {' '.join(map(str, args))}",
                        "run it by hand to see where it hangs: " + " ".join(cmd[3:]), timeout=timeout, check=False)
    if run.returncode != 0:
        raise LabError(f"{program} {' '.join(map(str, args))} failed (exit {run.returncode}):\n{run.stderr[-2000:]}",
                       "the message above names the problem")
    return pd.read_csv(io.StringIO(run.stdout))
