"""Runs untrusted code (a student's submission) so that it cannot take the grader down, see
what it must not see, or reach out:

- its own process group and PID namespace: at the wall-clock limit the whole group dies, and
  when its first process ends the kernel kills every process it left behind (forks, daemons);
- CPU, address-space, file-size and process-count limits (rlimits);
- its output read through a pipe, the first OUTPUT_CAP bytes kept and the rest discarded,
  so a gigabyte of printing costs neither memory nor disk;
- where the grader runs as root (CI, a grading server, Gradescope's container): its own network
  namespace with only loopback up, its own mount namespace in which /tmp is empty, private and
  small, /var/tmp and /dev/shm are empty and read-only, the hidden tests and other submissions are covered by empty
  folders, and it runs as `nobody`, so it can write only its own work folder.

Without root the grader says so (ISOLATION below) and keeps the limits it can set alone."""
from __future__ import annotations

import os
import pwd
import resource
import shlex
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

OUTPUT_CAP = 64 * 1024          # bytes of output kept for feedback
NPROC = 1024                    # tasks (threads count) of the sandbox user, machine-wide
NOBODY = pwd.getpwnam("nobody")


def _isolation() -> str:
    """'full' where namespaces and a user switch work here, else why not."""
    if os.geteuid() != 0:
        return "not root: no network or file-system isolation (run the grader as root, as CI and Gradescope do)"
    if not shutil.which("unshare") or not shutil.which("setpriv"):
        return "util-linux's unshare/setpriv missing (Debian: apt-get install util-linux)"
    probe = subprocess.run(["unshare", "--net", "--mount", "--pid", "--fork", "true"], capture_output=True)
    if probe.returncode != 0:
        return f"namespaces refused here: {probe.stderr.decode(errors='replace').strip()}"
    return "full"


ISOLATION = _isolation()


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
        resource.setrlimit(resource.RLIMIT_NPROC, (NPROC, NPROC))  # binds once setpriv drops root
    return apply


MASKED = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))


def _jail(cmd: list[str], work: Path, hide: list[Path]) -> list[str]:
    """The command wrapped in namespaces: the shell below runs as root inside them, arranges
    the mounts, brings loopback up, then becomes nobody for good and execs the command."""
    from handofflab import paths

    home = Path.home()
    # What must stay reachable through the emptied temporary folders: the work folder, and the
    # kit itself when it lives in one (a fresh clone in /tmp, as CI makes).
    keep = [work] + [paths.ROOT for m in MASKED if paths.ROOT.is_relative_to(m)]
    lines = ["set -e", "mount --make-rprivate /",            # nothing done here reaches the host
             "ip link set lo up"]
    for i, k in enumerate(keep):
        lines += [f"mkdir -p /run/handofflab-keep-{i}", f"mount --bind {shlex.quote(str(k))} /run/handofflab-keep-{i}"]
    if home != Path("/") and (home.stat().st_mode & 0o001) == 0:
        # nobody cannot pass through a private home: keep Maven's jars reachable, hide the rest
        m2 = home / ".m2"
        lines += ["mkdir -p /run/handofflab-m2", f"mount --bind {shlex.quote(str(m2))} /run/handofflab-m2",
                  f"mount -t tmpfs -o mode=755,size=1m none {shlex.quote(str(home))}",
                  f"mkdir -p {shlex.quote(str(m2))}", f"mount --bind -o ro /run/handofflab-m2 {shlex.quote(str(m2))}"]
    # Every world-writable place is emptied. /tmp stays writable, private and small: the JVM's
    # attach mechanism (Lincheck's agent attaches itself) needs it; the others are read-only.
    for d in MASKED:
        opts = "mode=1777,size=64m" if d == Path("/tmp") else "ro,mode=1777,size=1m"
        lines.append(f"mount -t tmpfs -o {opts} none {d}")
    for i, k in enumerate(keep):
        lines += [f"mkdir -p {shlex.quote(str(k))}", f"mount --bind /run/handofflab-keep-{i} {shlex.quote(str(k))}"]
    for h in hide:
        if h.exists() and not work.is_relative_to(h):
            q = shlex.quote(str(h))  # a path under /tmp is already gone: only what is still there
            lines.append(f"if [ -d {q} ]; then mount -t tmpfs -o ro,mode=000,size=1m none {q}; fi")
    lines.append(f'exec setpriv --reuid={NOBODY.pw_uid} --regid={NOBODY.pw_gid} --clear-groups '
                 f'--inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"')
    return ["unshare", "--net", "--mount", "--pid", "--fork", "--kill-child", "--", "sh", "-c", "\n".join(lines),
            "sandbox", *cmd]


def prepare(work: Path) -> None:
    """Let the sandbox user write its work folder (and pass through the folders above it)."""
    if ISOLATION != "full":
        return
    for p in [work, *work.rglob("*")]:
        os.chown(p, NOBODY.pw_uid, NOBODY.pw_gid, follow_symlinks=False)
    for parent in work.parents:
        if parent == Path("/tmp") or parent == Path("/"):
            break
        parent.chmod(parent.stat().st_mode | 0o711)


def run(cmd: list[str], timeout: float, cwd: str | None = None, env: dict | None = None,
        cpu_seconds: int = 300, memory_bytes: int = 8 * 1024 ** 3, work: Path | None = None,
        hide: tuple[Path, ...] = ()) -> Run:
    """Run cmd in a new session (jailed in `work` where ISOLATION is full); at the time limit
    kill its whole process group."""
    if work is not None and ISOLATION == "full":
        cmd = _jail(cmd, work, list(hide))
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=_limits(cpu_seconds, memory_bytes))
    kept, size = bytearray(), [0]

    def drain():  # keeps the first OUTPUT_CAP bytes; reads and drops the rest so the child never blocks
        while chunk := proc.stdout.read(65536):
            size[0] += len(chunk)
            if len(kept) < OUTPUT_CAP:
                kept.extend(chunk[:OUTPUT_CAP - len(kept)])

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
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
        reader.join(timeout=5)
    seconds = time.monotonic() - start
    text = bytes(kept).decode("utf-8", "replace")
    if size[0] > OUTPUT_CAP:
        text += f"\n[… output cut: {size[0]} bytes in all, the first {OUTPUT_CAP} kept]"
    return Run(None if timed_out else proc.returncode, text, seconds, timed_out, size[0] > OUTPUT_CAP)
