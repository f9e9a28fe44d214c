"""Where submitted code runs, and the walls around it: one grading's jail (a work folder it may
write, what it must not read, one uid, a minimal environment), each run inside it, and reading
back what it wrote, never trusting it (a report file is read only if it is a regular file, not
behind a link, and small). A run:

- its own process group and PID namespace: at the wall-clock limit the whole group dies, and
  when its first process ends the kernel kills every process it left behind (forks, daemons);
- CPU, address-space, file-size and process-count limits (rlimits);
- its output read through a pipe, the first budgets.OUTPUT_CAP bytes kept and the rest discarded,
  so a gigabyte of printing costs neither memory nor disk;
- where the grader runs as root (CI, a grading server, Gradescope's container): its own network
  namespace with only loopback up; its own PID namespace with a fresh /proc (no other process
  is visible); its own IPC and UTS namespaces (no shared memory or message queue outlives it or
  reaches a neighbour); its own mount namespace in which the root is read-only, /tmp is empty, private and small,
  /var/tmp, /dev/shm and /run (UNIX sockets of host services, /run/lock) are empty and
  read-only, and the hidden tests, the kit's .git, results and other submissions are covered by
  empty folders; it runs as a uid of its own (one per grading, never shared with a neighbour),
  so it can write only its own work folder and its process limit is its own; and where the
  host's cgroups can be written, one cgroup per run caps its memory and tasks in total.

Without root the grader says so (ISOLATION below) and keeps the limits it can set alone;
`grader.grade` then refuses to grade unless the instructor allows the weaker level, and
every results.json says which level graded it.
"""
from __future__ import annotations

import fcntl
import itertools
import os
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from grader import budgets, cgroups, schedstat
from handofflab.ground import paths
from handofflab.ground.toolchain import machine_cpu_seconds

# One uid per grading, from a range no account uses. Each process draws from a block of its own, found from its pid:
# two processes alive at once have two pids, so two graders (a batch in two shells, the test suite's workers) never
# hand out one uid. The block was once pid % 4096 times 64 uids, and a test worker that graded more than 64 times ran
# into its neighbour's block: a hostile test found another worker's javac running under a uid it had issued itself.
# A block is as large as uid_t leaves room for (4096 uids where pid_max is 32768); a process that issues more reuses
# its own first ones, whose runs ended long before.
UID_BASE = 200_000


def _uid_block(pid: int, pid_max: int) -> range:
    size = min(4096, (2 ** 32 - 2 - UID_BASE) // pid_max)
    return range(UID_BASE + pid * size, UID_BASE + (pid + 1) * size)


def _pid_max() -> int:
    try:
        return int(Path("/proc/sys/kernel/pid_max").read_text())
    except (OSError, ValueError):
        return 4_194_304  # the kernel's largest


_BLOCK = _uid_block(os.getpid(), _pid_max())
_UIDS = itertools.count()


_UNSHARE = ["unshare", "--net", "--mount", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc"]


ISSUED: set[int] = set()  # the uids this process handed out (its gradings', nobody else's)


def new_uid() -> int:
    """A uid for one grading's runs: its files, its process limit, nobody else's."""
    uid = _BLOCK[next(_UIDS) % len(_BLOCK)]
    ISSUED.add(uid)
    return uid


def _isolation() -> str:
    """'full' where namespaces and a user switch work here, else why not. HANDOFFLAB_ISOLATION=weak
    forces the weaker level on a host that could do better (to test the grader as a container
    without CAP_SYS_ADMIN would run it)."""
    if os.environ.get("HANDOFFLAB_ISOLATION") == "weak":
        return "weak, forced by HANDOFFLAB_ISOLATION=weak: limits only, no namespaces"
    if os.geteuid() != 0:
        return "not root: no network or file-system isolation (run the grader as root, as CI and Gradescope do)"
    if not shutil.which("unshare") or not shutil.which("setpriv"):
        return "util-linux's unshare/setpriv missing (Debian: apt-get install util-linux)"
    probe = subprocess.run([*_UNSHARE, "true"], capture_output=True)
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
    cpu_s: float = 0.0          # CPU time of the run and everything it started: its cgroup's count, else wait4's
                                # rusage (which misses what it left unwaited); 0 if killed at the time limit
    machine_cpu_s: float = 0.0  # CPU time of every process on the machine meanwhile, with time the host stole
    idle_s: float | None = None  # asked for (watch=True): the longest stretch in which none of its threads ran or
                                 # waited to run (schedstat.longest_idle); None where not watched or not known

    @property
    def others_cores(self) -> float:
        """How many cores other work on the machine kept busy, on average, while this run ran: what a
        verdict that depends on speed must not be blamed on the run (0 if not known)."""
        if self.timed_out or not self.machine_cpu_s or not self.seconds:
            return 0.0
        return max(0.0, self.machine_cpu_s - self.cpu_s) / self.seconds


def _limits(cpu_seconds: int, memory_bytes: int, groups: list[Path]):
    def apply():
        for group in groups:  # before exec: the run and everything it starts count against the group
            (group / "cgroup.procs").write_text(str(os.getpid()))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024 * 1024,) * 2)
        resource.setrlimit(resource.RLIMIT_NPROC, (budgets.NPROC, budgets.NPROC))  # binds once setpriv drops root
    return apply


MASKED = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))
STAGE = Path("/run")    # masked last: where the folders to keep wait while the others are emptied


CGROUPS = ISOLATION == "full" and cgroups.available()


def _jailed_command(cmd: list[str], work: Path, hide: list[Path], uid: int) -> list[str]:
    """The command wrapped in namespaces: the shell below runs as root inside them, arranges
    the mounts, brings loopback up, then becomes `uid` for good and execs the command."""

    home = Path.home()
    # What must stay reachable through the emptied folders: the work folder, and the kit itself
    # when it lives in one (a fresh clone in /tmp, as CI makes).
    keep = [work] + [paths.ROOT for m in (*MASKED, STAGE) if paths.ROOT.is_relative_to(m)]
    q = shlex.quote
    lines = ["set -e", "umask 022",  # the folders made below must be passable by the uid, whatever the grader's umask
             "mount --make-rprivate /",            # nothing done here reaches the host
             "ip link set lo up",
             f"mount -t tmpfs -o mode=755,size=1m none {STAGE}"]   # host services' sockets and locks: gone
    for i, k in enumerate(keep):
        lines += [f"mkdir -p {STAGE}/keep-{i}", f"mount --bind {q(str(k))} {STAGE}/keep-{i}"]
    if home != Path("/") and (home.stat().st_mode & 0o001) == 0:
        # the jail's uid cannot pass through a private home: keep Maven's jars reachable, hide the rest
        m2 = home / ".m2"
        lines += [f"mkdir -p {STAGE}/m2", f"mount --bind {q(str(m2))} {STAGE}/m2",
                  f"mount -t tmpfs -o mode=755,size=1m none {q(str(home))}",
                  f"mkdir -p {q(str(m2))}", f"mount --bind -o ro {STAGE}/m2 {q(str(m2))}"]
    # Every world-writable place is emptied. /tmp stays writable, private and small: the JVM's
    # attach mechanism (Lincheck's agent attaches itself) needs it; the others are read-only.
    for d in MASKED:
        opts = "mode=1777,size=64m" if d == Path("/tmp") else "ro,mode=1777,size=1m"
        lines.append(f"mount -t tmpfs -o {opts} none {d}")
    for i, k in enumerate(keep):
        lines += [f"mkdir -p {q(str(k))}", f"mount --bind {STAGE}/keep-{i} {q(str(k))}"]
    for h in hide:
        if h.exists() and not work.is_relative_to(h):
            qh = q(str(h))  # a path under /tmp is already gone: only what is still there
            lines.append(f"if [ -d {qh} ]; then mount -t tmpfs -o ro,mode=000,size=1m none {qh}; fi")
    lines.append(f"mount -o remount,ro {STAGE}")
    # The root itself read-only: only the work folder and the private /tmp (mounts of their own) stay writable.
    lines.append("mount -o remount,bind,ro /")
    # Start in the work folder, reached through the new mounts: a working folder inherited from the grader
    # still points into the mounts below them (a kit under /tmp, bound back above), where a relative path
    # read .git and grading/ past every hiding mount (issue 51).
    lines.append(f"cd {q(str(work))}")
    lines.append(f'exec setpriv --reuid={uid} --regid={uid} --clear-groups '
                 f'--inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"')
    return [*_UNSHARE, "--", "sh", "-c", "\n".join(lines), "jail", *cmd]


# What `./lab doctor` and the grader say to do about files unreadable() finds.
PRIVATE_KIT_FIX = ("let every user read the kit's Java and Maven's jars: chmod -R o+rX java ~/.m2/repository "
                   "(made under umask 077, they are private to you); run the kit with umask 022 from then on")


def unreadable(entries: list[Path], limit: int = 5) -> list[str]:
    """What a grading's uid, a user of its own, could not read of these files and folders: a file needs o+r, a
    folder o+rx (and so does all that is in it), every folder above o+x. A kit built under umask 077 leaves its
    jars private to root, and then every submission 'does not compile'. Not checked: the home folder, for ~/.m2
    (the jail replaces a private home with an open one around it), and the folders above a kit in /tmp, which the
    jail makes anew."""
    home, found, seen = Path.home(), [], set()

    def check(path: Path, need: int, what: str) -> None:
        if path in seen or len(found) >= limit:
            return
        seen.add(path)
        try:
            mode = path.stat().st_mode
        except OSError:
            return  # not there: nothing to read
        if mode & need != need:
            found.append(f"{path} ({what}: mode {mode & 0o777:o})")

    # The jail makes the folders above a kit that lives in /tmp (or another emptied folder) anew, passable by all
    # (_jail's keep): a private folder there, such as mktemp's, is not on the uid's way.
    remade = {p for p in paths.ROOT.parents if any(p.is_relative_to(m) for m in (*MASKED, STAGE))}
    for entry in entries:
        for parent in entry.parents:
            if parent not in remade and (parent != home or not entry.is_relative_to(home / ".m2")):
                check(parent, 0o001, "a folder the way passes through")
        if entry.is_dir():
            check(entry, 0o005, "a folder")
            for folder, dirs, files in os.walk(entry):
                for d in dirs:
                    check(Path(folder) / d, 0o005, "a folder")
                for f in files:
                    check(Path(folder) / f, 0o004, "a file")
        else:
            check(entry, 0o004, "a file")
    return found


def prepare(work: Path, uid: int) -> None:
    """Let the run's uid write its work folder (and pass through the folders above it)."""
    if ISOLATION != "full":
        return
    # Runs of one grading go in parallel (the spec lab's TLC runs): while this walks, another run
    # creates and deletes files here (SANY's copies of the standard modules). A file gone is a file
    # that needs no owner; os.walk skips a folder gone under it.
    for folder, dirs, files in os.walk(work):
        for name in [None, *dirs, *files]:
            path = folder if name is None else os.path.join(folder, name)
            try:
                if os.lstat(path).st_uid != uid:
                    os.chown(path, uid, uid, follow_symlinks=False)
            except FileNotFoundError:
                pass
    for parent in work.parents:
        if parent == Path("/tmp") or parent == Path("/"):
            break
        parent.chmod(parent.stat().st_mode | 0o711)


def run(cmd: list[str], timeout: float, cwd: str | None = None, env: dict | None = None,
        cpu_seconds: int = 300, memory_bytes: int = 8 * 1024 ** 3, work: Path | None = None,
        hide: tuple[Path, ...] = (), stdin: str | None = None, uid: int | None = None, watch: bool = False) -> Run:
    """Run cmd in a new session (jailed in `work` as `uid` where ISOLATION is full); at the time
    limit kill its whole process group. `stdin`: text written to its standard input. `watch`: sample
    what its threads ask of the processors (Run.idle_s)."""
    groups = cgroups.CGroups(f"handofflab-{os.getpid()}-{next(_RUNS)}") if work is not None and ISOLATION == "full" else None
    if work is not None and ISOLATION == "full":
        cmd = _jailed_command(cmd, work, list(hide), uid if uid is not None else new_uid())
    try:
        r = _run(cmd, timeout, cwd, env, cpu_seconds, memory_bytes, stdin, groups.groups if groups else [], watch)
        counted = groups.cpu_seconds() if groups else None
        if counted is not None and not r.timed_out:  # the cgroup also counts what the run left behind
            r.cpu_s = counted
        return r
    finally:
        if groups:
            groups.close()


_RUNS = itertools.count()


def _run(cmd, timeout, cwd, env, cpu_seconds, memory_bytes, stdin, groups, watch=False) -> Run:
    start, machine_before = time.monotonic(), machine_cpu_seconds()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE, start_new_session=True,
                            preexec_fn=_limits(cpu_seconds, memory_bytes, groups))
    if stdin is not None:
        try:
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
        except OSError:  # it ended before reading: its exit says why
            pass
    kept, size = bytearray(), [0]
    out = proc.stdout.fileno()
    try:  # a pipe of 1 MiB, not 64 KiB: a run that prints a gigabyte wakes the reader 16 times less often (a
        fcntl.fcntl(out, fcntl.F_SETPIPE_SZ, 1 << 20)  # busy machine once ran such a test past JUnit's 5 s)
    except (OSError, AttributeError):
        pass  # the host's limit (fs.pipe-max-size), or no Linux: the default pipe

    def drain():  # keeps the first budgets.OUTPUT_CAP bytes; reads and drops the rest so the child never blocks
        while chunk := os.read(out, 1 << 20):  # whatever is there, up to 1 MiB: one wake-up per pipeful
            size[0] += len(chunk)
            if len(kept) < budgets.OUTPUT_CAP:
                kept.extend(chunk[:budgets.OUTPUT_CAP - len(kept)])

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    watcher = schedstat.Watch(proc.pid).start() if watch and schedstat.available() else None  # its session's id
    usage = None
    try:
        usage = _wait(proc, timeout)
    finally:
        series = watcher.stop() if watcher else None
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the group: threads, children, forks
        except ProcessLookupError:
            pass
        proc.wait()
        _until_gone(proc.pid)
        reader.join(timeout=5)
    seconds, machine_after = time.monotonic() - start, machine_cpu_seconds()
    timed_out = usage is None
    text = bytes(kept).decode("utf-8", "replace")
    if size[0] > budgets.OUTPUT_CAP:
        text += f"\n[… output cut: {size[0]} bytes in all, the first {budgets.OUTPUT_CAP} kept]"
    return Run(None if timed_out else proc.returncode, text, seconds, timed_out, size[0] > budgets.OUTPUT_CAP,
               usage.ru_utime + usage.ru_stime if usage else 0.0, machine_after - machine_before,
               schedstat.longest_idle(series) if series else None)


def _until_gone(session: int, limit: float = 30.0) -> None:
    """Return once no process of the run's session is left: the ones killed with its group, or by the PID
    namespace when its first process ended, can outlive the reaped leader by the moment the kernel takes to tear them
    down. (Not seen to happen here; the JVM a hostile test once found after its grading was another worker's, under a
    shared uid: see _uid_block.) Bounded: a process the kernel cannot tear down is not worth hanging the grader for."""
    deadline = time.monotonic() + limit
    while schedstat.living(session) and time.monotonic() < deadline:
        time.sleep(0.02)


def _wait(proc: subprocess.Popen, timeout: float):
    """Wait for proc to end, at most `timeout` seconds: its rusage (with its waited-for descendants'), or None.
    wait4 on its pid, not RUSAGE_CHILDREN: other children of the grader ending meanwhile are not counted."""
    deadline, delay = time.monotonic() + timeout, 0.0005
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        time.sleep(min(delay, left))
        delay = min(2 * delay, 0.05)


class Jail:
    """Where one grading's jailed runs may write (`work`), what they must not read, the uid
    they run as (one per grading) and the few environment variables they get (none of the
    grader's own: its environment can hold secrets and paths the submission must not learn)."""

    def __init__(self, work: Path, hide: tuple[Path, ...]):
        self.work, self.hide, self.uid = work, hide, new_uid()
        (work / "jvm-tmp").mkdir(exist_ok=True)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(work),
                    "JAVA_TOOL_OPTIONS": budgets.JVM_OPTIONS.format(work=work)}
        if os.environ.get("JAVA_HOME"):
            self.env["JAVA_HOME"] = os.environ["JAVA_HOME"]

    def run(self, cmd: list[str], timeout: float, stdin: str | None = None, watch: bool = False) -> Run:
        prepare(self.work, self.uid)
        r = run(cmd, timeout, env=self.env, work=self.work, hide=self.hide, stdin=stdin, uid=self.uid, watch=watch)
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


def ended_early(what: str, run: Run) -> str:
    return (f"Not graded: {what} ended (exit code {run.returncode}) before reporting. Did your code call "
            "`System.exit` or `Runtime.halt`, or run out of memory? The last output was:\n\n```text\n"
            + run.output[-2000:] + "\n```")

