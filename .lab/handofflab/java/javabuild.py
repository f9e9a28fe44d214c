"""Builds java/ with Maven (once per change) and gives the class path the
checkers, notebooks and grader run with."""
from __future__ import annotations

import fcntl
from pathlib import Path

from handofflab.ground import paths, toolchain
from handofflab.ground.console import step

STAMP = paths.JAVA / "checks" / "target" / ".lab-built"
LOCK = paths.JAVA / ".lab-build.lock"  # beside target/, which mvn clean removes


def _newest_source() -> float:
    files = [p for p in paths.JAVA.rglob("*") if p.suffix in (".java", ".xml") and "target" not in p.parts]
    return max(p.stat().st_mtime for p in files)


def built() -> bool:
    """Whether java/ is built and no source is newer than the build."""
    return STAMP.exists() and STAMP.stat().st_mtime >= _newest_source()


def build(force: bool = False) -> None:
    """mvn package (tests skipped: `./lab test` runs them) + each module's class path."""
    def fresh() -> bool:
        return not force and built()

    if fresh():
        return
    # One build at a time: processes that find the sources changed at once (pytest's workers, a grading
    # beside a check) would otherwise run mvn together and read each other's half-written target/.
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if fresh():  # built by the process that held the lock
            return
        with step("Building java/ with Maven (first run downloads Lincheck and JUnit from Maven Central)"):
            toolchain.mvn(["-DskipTests", "package", "dependency:build-classpath",
                           "-Dmdep.outputFile=target/classpath.txt"], paths.JAVA / "pom.xml", "building java/")
        STAMP.touch()


def classpath(module: str = "checks") -> str:
    build()
    return _classpath(module)


def _classpath(module: str) -> str:
    target = paths.JAVA / module / "target"
    deps = (target / "classpath.txt").read_text().strip()
    return f"{target / 'classes'}:{deps}" if deps else str(target / "classes")


def submission_classpath() -> str:
    """The kit's jars a submitted class compiles against: the handoffs (Handoff, SynchronizedRef), the
    calendar store (EventFolder) and the DHT (CompletionQueue); what it may use of them is its lab's
    API profile's to say."""
    build()
    return _submission_classpath()


def _submission_classpath() -> str:
    return ":".join(str(next((paths.JAVA / m / "target").glob(f"{m}-*.jar"))) for m in ("handoffs", "calendar", "dht"))


def jail_reads(build_first: bool = True) -> list[Path]:
    """What a grading's jailed runs read of the kit's Java: each class path the grader runs with, and the jars a
    submission compiles against (the grader's jail.unreadable checks that its uid can). `./lab doctor` never builds: it
    passes build_first=False once the kit is built."""
    if build_first:
        build()
    # a student copy holds only the modules its labs use (no servers/ in most)
    paths_ = [*(_classpath(m) for m in ("checks", "dht", "servers") if (paths.JAVA / m).is_dir()),
              _submission_classpath()]
    return list(dict.fromkeys(Path(e) for cp in paths_ for e in cp.split(":") if e))
