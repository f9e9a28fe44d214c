"""The grader's limits, in one place. Each is a budget for a machine much busier than a quiet
one: a hang or an endless loop is named sooner by the checkers themselves (JUnit's timeouts,
the stress watchdog, Lincheck's limits); running out of a budget without a verdict is the
machine's fault, so it is retried, then marked pending ("regrade"), never scored."""
import os

COMPILE_SECONDS = 60
SERVER_SECONDS = 240            # the server lab's runs, a JVM each (3 x yours and the kit's on 2000 requests, yours on
                                # 500 on a full ring; 3 x the first two again when yours falls short): about 20 s when
                                # the handoff works, about 40 s when it spins
DHT_SECONDS = 120              # one run of the DHT lab (p JVMs on loopback): about 3 s when the queue works; a queue
                                # that keeps every buffer is named by the target itself within a second or two
TLC_SECONDS = 60                # one TLC run of a submitted spec; the kit's own models need under 5
TEST_SECONDS = 120              # one JVM of tests or of a checker: about 15 s when the machine is quiet; the
                                # slack is for a busy one (a hang is caught sooner: JUnit timeouts, the watchdog)
SERVER_REPLY_MS = 3_000         # a reply takes t_r (20 ms) plus its queueing: 3 s is 150 t_r, i.e. lost
JUNIT_SECONDS = 5               # per public test, enforced from another thread: a spin ignores interrupts
JUNIT_AGAIN_SECONDS = 30        # per test past JUNIT_SECONDS on a busy machine, run once more (kinds/junit.py)
HANG_IDLE_SECONDS = 5.0         # a test past its limit whose threads asked for no processor this long waits for ever
STRESS_SECONDS = 3.0
BUSY_CORES = 0.25               # a share of the machine's cores: other work that kept this much busy, on average, while a
                                # stress run finished no trial, leaves its speed unjudged (a spinning class loses most:
                                # 4 trials in 3 s quiet, none in 6 s beside a CI run's other workers)


def too_busy(others_cores: float) -> bool:
    """Whether other work kept BUSY_CORES of the machine's cores busy while a run ran (Run.others_cores, or a kit
    check's stats): a verdict that depends on the run's speed is then not judged here ("not graded, regrade")."""
    return others_cores >= BUSY_CORES * (os.cpu_count() or 1)
# Every JVM that runs submitted code: a heap the machine can afford, no perf-data file in the
# (read-only) /tmp, and temporary files in the submission's own folder.
JVM_OPTIONS = "-Xmx1g -XX:-UsePerfData -Djava.io.tmpdir={work}/jvm-tmp"
# javac on a file or two is done before the JVM's optimising compiler pays off: the quick one alone
# halves its CPU (0.35 s against 0.65 s for MonitorBuffer.java). The checkers keep both: stress needs the speed.
JAVAC = ["javac", "-J-XX:TieredStopAtLevel=1"]
REPORT_CAP = 4 * 1024 * 1024    # bytes of a report file the grader reads (a JUnit XML, a verdict, a CSV)
UNPACK_FILES = 200              # files a submission may hold (the labs need one)
UNPACK_BYTES = 8 * 1024 * 1024  # bytes, all files together, once unpacked
# The jail's walls (jail.py): what one grading's runs may take in all
OUTPUT_CAP = 64 * 1024          # bytes of output kept for feedback
NPROC = 1024                    # tasks (threads count) of one grading's uid
MEMORY_TOTAL = 3 * 1024 ** 3    # bytes one run may hold in all its processes (where cgroups allow)
