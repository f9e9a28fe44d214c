"""Where submitted code runs: one grading's jail (a work folder it may write, what it must not
read, one uid, a minimal environment) and reading back what it wrote, never trusting it:
a report file is read only if it is a regular file, not behind a link, and small."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from grader import budgets
from handofflab import sandbox


class Jail:
    """Where one grading's sandboxed runs may write (`work`), what they must not read, the uid
    they run as (one per grading) and the few environment variables they get (none of the
    grader's own: its environment can hold secrets and paths the submission must not learn)."""

    def __init__(self, work: Path, hide: tuple[Path, ...]):
        self.work, self.hide, self.uid = work, hide, sandbox.new_uid()
        (work / "jvm-tmp").mkdir(exist_ok=True)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(work),
                    "JAVA_TOOL_OPTIONS": budgets.JVM_OPTIONS.format(work=work)}
        if os.environ.get("JAVA_HOME"):
            self.env["JAVA_HOME"] = os.environ["JAVA_HOME"]

    def run(self, cmd: list[str], timeout: float, stdin: str | None = None) -> sandbox.Run:
        sandbox.prepare(self.work, self.uid)
        r = sandbox.run(cmd, timeout, env=self.env, work=self.work, hide=self.hide, stdin=stdin, uid=self.uid)
        r.output = "\n".join(l for l in r.output.splitlines() if not l.startswith("Picked up JAVA_TOOL_OPTIONS"))
        return r


class MalformedReport(Exception):
    """A report file that is missing, not a regular file, too large, or not what its reader expects."""


def read_report(path: Path) -> str:
    """Exactly the file at `path`: a regular file (never a link, nor under one), at most budgets.REPORT_CAP bytes."""
    if os.path.realpath(path) != os.path.abspath(path):
        raise MalformedReport(f"{path.name} lies behind a symbolic link")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO must not block the grader
    except OSError as e:
        raise MalformedReport(f"{path.name}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise MalformedReport(f"{path.name} is not a regular file")
        if st.st_size > budgets.REPORT_CAP:
            raise MalformedReport(f"{path.name} has {st.st_size} bytes (more than {budgets.REPORT_CAP})")
        return f.read(budgets.REPORT_CAP).decode("utf-8", "replace")


def ended_early(what: str, run: sandbox.Run) -> str:
    return (f"Not graded: {what} ended (exit code {run.returncode}) before reporting. Did your code call "
            "`System.exit` or `Runtime.halt`, or run out of memory? The last output was:\n\n```text\n"
            + run.output[-2000:] + "\n```")

