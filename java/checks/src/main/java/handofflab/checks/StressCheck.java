package handofflab.checks;

import handofflab.handoffs.CheckProfile;
import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import handofflab.handoffs.RecordedHandoff;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A stress run under a watchdog: one acceptor and two workers push connection
 * ids through a small handoff (the catalog's check profile) as fast as they can, trial after trial, for a
 * bounded time. The trials take turns through CheckProfile.stressShapes: a buffer with one, two
 * and three slots, and two acceptors wherever the design allows more than one (a bounded one is first put in the
 * state where both acceptors wait on a full handoff, woken by one take and then by two in a row, at every size:
 * TwoWaitingAcceptors; every design, in the state where both
 * workers wait on an empty one and two puts come in a row: TwoWaitingWorkers; a table whose takes can be held
 * between claim and swap, with more workers than slots waiting ahead of the acceptor: MoreWorkersThanSlots). Every take is checked on the spot (NoInvented, NoDuplicate),
 * every finished trial for NoLoss, and a watchdog turns "no progress" into a
 * verdict: if every thread is parked in wait() or blocked on the monitor, it is
 * a deadlock, reported with where each thread is stuck — never a hung build.
 *
 * <p>Why this catches the notify() lost wake-up although plain repetition finds
 * races rarely: HotSpot's wait set wakes threads in about FIFO order, so
 * {@code notify()} in a one-slot buffer wakes the wrong kind of thread within a
 * few hundred handoffs (measured: every trial of 10, within 100 items).
 */
public final class StressCheck {
    static final int WORKERS = 2, PER_TRIAL = 50_000;  // a trial the slowest kit design (the pipes, ~25 000/s) finishes in 2 s
    static final long STALL_MS = 500;   // no progress for this long, with everybody parked: deadlock
    static final long SPIN_MS = 5_000;  // no progress for this long while some thread runs: livelock
    private static final int LOG = 64;  // the last events kept for the swimlanes
    /**
     * In a traced trial of an unbounded design, the acceptors wait while this many connections are in the
     * handoff: a queue the acceptor outran held 9 547 of 40 000 events, every TLC state carried that sequence,
     * and TLC ran out of memory. The recorded run is still a real run of the class, only a shorter queue's.
     */
    static final int TRACED_WINDOW = 16;

    private StressCheck() {
    }

    public static Verdict run(String name, CheckProfile profile, double seconds) throws InterruptedException {
        return run(name, profile, seconds, null, 0);
    }

    /**
     * With {@code trace} set, stress with trace validation switched on: the first trial (at the largest
     * size, with the most acceptors) has its handoff
     * recorded from outside (RecordedHandoff, and the kit's hash table's slot steps) until its
     * {@code maxEvents}th event, and the log is written to {@code trace} for TLC
     * (./lab check trace NAME --stress); the trial's shape goes into the verdict's stats.
     */
    public static Verdict run(String name, CheckProfile profile, double seconds, Path trace,
                              long maxEvents) throws InterruptedException {
        Verdict v = new Verdict("stress", name);
        int[][] shapes = profile.stressShapes();
        if (trace == null) {  // a state the free trials reach only by luck, built first; not when a trial is traced
            builtStates(name, profile, shapes, v);
        }
        long deadline = System.nanoTime() + (long) (seconds * 1e9);  // the trials' own seconds, after the probe
        Tally tally = new Tally();
        while (System.nanoTime() < deadline && v.verdict.equals("pass")) {
            boolean traced = trace != null && tally.trials + tally.cut == 0;
            // The traced trial has the most room to leave the design: the largest size, the most acceptors.
            int[] shape = traced ? shapes[shapes.length - 1] : shapes[(tally.trials + tally.cut) % shapes.length];
            Trial t = new Trial(name, shape[0], shape[1], traced ? maxEvents : 0,
                    traced && !profile.bounded ? TRACED_WINDOW : 0);
            t.run(deadline, v);
            if (traced) {
                writeTrace(t.recorder, trace, shape, v);
            }
            if (!v.verdict.equals("pass")) {
                v.stats.put("acceptors", shape[0]);
                v.stats.put("size", shape[1]);
                v.detail += " (trial " + (tally.trials + tally.cut + 1) + ": " + shape[0] + " acceptor(s), size "
                        + shape[1] + ")";
            }
            tally.add(t);
        }
        tally.conclude(v, seconds);
        return v;
    }

    /** The states built step by step, each a lost wake-up's: two waiting acceptors (then two takes in a row, at each
     *  size the trials use), two waiting workers (two puts in a row), more workers than slots. Each only while the
     *  verdict is still a pass. */
    private static void builtStates(String name, CheckProfile profile, int[][] shapes, Verdict v)
            throws InterruptedException {
        if (profile.bounded && profile.acceptors > 1) {
            TwoWaitingAcceptors.probe(name, shapes[0][1], v);
            for (int size : Arrays.stream(shapes).mapToInt(shape -> shape[1]).distinct().sorted().toArray()) {
                if (v.verdict.equals("pass")) {
                    TwoWaitingAcceptors.twoTakes(name, size, v);
                }
            }
        }
        if (v.verdict.equals("pass")) {
            TwoWaitingWorkers.probe(name, shapes[shapes.length - 1][1], v);
        }
        if (v.verdict.equals("pass") && profile.moreWorkersThanSlots) {
            MoreWorkersThanSlots.probe(name, v);  // the acceptor behind waiting workers in one wait set
        }
    }

    /** The traced trial's log, for TLC, and its shape in the verdict's stats. */
    private static void writeTrace(RecordedHandoff<Integer> recorder, Path trace, int[] shape, Verdict v) {
        recorder.stop();
        try {
            v.stats.put("traced_events", recorder.writeTo(trace));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trace to " + trace, e);
        }
        v.stats.put("traced_size", shape[1]);
        v.stats.put("traced_acceptors", shape[0]);
        v.stats.put("traced_whole_trial", recorder.full() ? 0 : 1);
    }

    /** What the trials did, together: finished and cut, connections moved, and what their threads asked of the CPUs. */
    private static final class Tally {
        int trials, cut;
        long moved;
        long ran, waited;  // the trial threads' time on a CPU, and runnable but waiting for one (ns)
        final long wallStart = System.nanoTime(), cpuStart = processCpuNanos();

        void add(Trial t) {
            ran += t.ran.get();
            waited += t.waited.get();
            if (t.cut) {
                cut++;  // neither a pass nor a catch: the trial was stopped, not finished
            } else {
                trials++;
            }
            moved += t.taken.get();
        }

        /** The stats, and a pass that finished no trial made "incomplete": not a verdict. */
        void conclude(Verdict v, double seconds) {
            v.stats.put("trials", trials);
            v.stats.put("cut", cut);
            v.stats.put("handoffs", moved);
            v.stats.put("seconds", seconds);
            // Who kept the trials short, when none finished: the trial threads' CPU and run-queue time (Linux
            // schedstat; 0 elsewhere) and the whole JVM's CPU against the wall clock. Threads that waited for a CPU
            // more than they ran, in a JVM that did not itself use the machine's cores, were starved by other work.
            v.stats.put("trial_cpu_s", ran / 1e9);
            v.stats.put("trial_runqueue_s", waited / 1e9);
            v.stats.put("process_cpu_s", (processCpuNanos() - cpuStart) / 1e9);
            v.stats.put("wall_s", (System.nanoTime() - wallStart) / 1e9);
            v.stats.put("cores", Runtime.getRuntime().availableProcessors());
            if (v.verdict.equals("pass") && trials == 0) {
                // Not a verdict: on a busy machine (or a very slow handoff) no trial finished in time.
                v.verdict = "incomplete";
                v.detail = "no trial of " + PER_TRIAL + " connections finished within " + seconds + " s (" + moved
                        + " handed over, none twice): too slow to judge here; run it again with more time";
            } else if (v.verdict.equals("pass")) {
                v.detail = moved + " connections handed over in " + trials + " complete trial(s), each exactly once"
                        + (cut > 0 ? " (a last trial was stopped at the budget and is not counted as a pass)" : "");
            }
        }
    }

    static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean
                ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() : 0;
    }

    /** One run of PER_TRIAL connections through a fresh handoff. */
    private static final class Trial {
        final Handoff<Integer> handoff;
        final RecordedHandoff<Integer> recorder;  // the handoff itself, recorded, in the traced trial; else null
        final AtomicLong taken = new AtomicLong();
        final AtomicLong ran = new AtomicLong(), waited = new AtomicLong();  // schedstat of its threads, at their end
        boolean cut;  // stopped at the budget before every connection was taken
        final AtomicLong seq = new AtomicLong();
        final String[][] log = new String[LOG][];
        final BitSet seen = new BitSet(PER_TRIAL + 1);
        final AtomicReference<String> violation = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        final java.util.Map<String, String> ending = new java.util.concurrent.ConcurrentHashMap<>();
        final int acceptors;
        final java.util.concurrent.atomic.AtomicInteger acceptorsDone = new java.util.concurrent.atomic.AtomicInteger();

        final int window;  // at most this many connections in the handoff at once (0: no limit)
        final AtomicLong put = new AtomicLong();
        volatile long until = Long.MAX_VALUE;

        Trial(String name, int acceptors, int size, long traceEvents, int window) {
            Handoff<Integer> made = Handoffs.create(name, size);
            recorder = traceEvents > 0 ? new RecordedHandoff<>(made, traceEvents) : null;
            handoff = recorder != null ? recorder : made;
            this.acceptors = acceptors;
            this.window = window;
        }

        void event(String thread, String action) {
            if (violation.get() != null) {
                return;  // keep the log as it was when exactly-once broke
            }
            long n = seq.getAndIncrement();
            log[(int) (n % LOG)] = new String[] {Long.toString(n), thread, action};
        }

        void run(long deadline, Verdict v) throws InterruptedException {
            until = deadline;
            List<Thread> acceptorThreads = new ArrayList<>(), workers = new ArrayList<>();
            for (int a = 1; a <= acceptors; a++) {
                int first = a;
                acceptorThreads.add(new Thread(() -> accept(first), acceptors == 1 ? "acceptor" : "acceptor-" + a));
            }
            for (int w = 1; w <= WORKERS; w++) {
                workers.add(new Thread(this::work, "worker-" + w));
            }
            threads.addAll(acceptorThreads);
            threads.addAll(workers);
            PreThreaded.start(workers, acceptorThreads);
            watch(deadline, v);
            if (!v.verdict.equals("pass")) {
                record(v);
            }
            for (Thread t : threads) {
                t.interrupt();
            }
            // Each thread adds its schedstat as it ends; one stuck in the class adds nothing. A cut trial's threads are
            // slow, not stuck, and may need a while to end under load (FastBuffer's 50 yields beside two busy loops
            // outlasted 200 ms, its run queue time was lost, and a starved run read as a slow one): up to 5 s for all.
            long joinUntil = System.nanoTime() + (cut ? 5_000L : 200L * threads.size()) * 1_000_000L;
            for (Thread t : threads) {
                t.join(Math.max(1, (joinUntil - System.nanoTime()) / 1_000_000L));
            }
        }

        /**
         * The watchdog, every 20 ms until the trial ends: every connection taken once (a pass), a violation its
         * threads saw, nothing handed over for SPIN_MS while threads run (a livelock), every thread waiting for
         * STALL_MS (a loss, or a deadlock), or the budget passed by 5 s (cut: no verdict).
         */
        private void watch(long deadline, Verdict v) throws InterruptedException {
            long last = -1, lastChange = System.nanoTime(), lastProgress = System.nanoTime();
            while (true) {
                Thread.sleep(20);
                long now = taken.get();
                if (violation.get() != null) {
                    v.verdict = "violation:" + violation.get().split(":")[0];
                    v.detail = violation.get();
                    return;
                }
                if (now == PER_TRIAL) {
                    return;  // every connection taken, none twice, none invented
                }
                if (now != last) {
                    last = now;
                    lastChange = System.nanoTime();
                    lastProgress = lastChange;
                } else if (System.nanoTime() - lastProgress > SPIN_MS * 1_000_000L) {
                    // Someone keeps running, nobody gets anything: accepted connections wait for ever.
                    v.verdict = "violation:EventuallyTaken";
                    v.detail = "no connection handed over for " + SPIN_MS + " ms although threads are running: a livelock";
                    return;
                } else if (System.nanoTime() - lastChange > STALL_MS * 1_000_000L) {
                    if (PreThreaded.stuck(threads)) {
                        stuck(now, v);
                        return;
                    }
                    lastChange = System.nanoTime();  // slow, not stuck: keep watching
                }
                if (System.nanoTime() > deadline + 5_000_000_000L) {
                    cut = true;  // a trial may finish past the budget, not far past it
                    return;
                }
            }
        }

        /** Every thread waits, after {@code now} connections were taken: a loss if every put returned, else a
         *  deadlock. */
        private void stuck(long now, Verdict v) {
            if (acceptorsDone.get() == acceptors) {
                // Everything was put, every worker waits, yet some ids never came out.
                v.verdict = "violation:NoLoss";
                v.detail = (PER_TRIAL - now) + " accepted connection(s) never reached a worker";
                return;
            }
            v.verdict = "deadlock";
            // Nothing handed over in a trial (a fresh handoff) is no wake-up that went to the wrong thread: before
            // the first take only takes can be waiting. It is a wait on the wrong condition, or a put that wakes
            // nobody.
            v.detail = now == 0
                    ? "every thread is waiting and not one connection was handed over: put or take "
                      + "waits on the wrong condition, or a put wakes no waiting take"
                    : "no progress for " + STALL_MS + " ms and every thread is waiting: a lost wake-up";
        }

        /** Adds the calling thread's time on a CPU and waiting for one (Linux: /proc/thread-self/schedstat). */
        void countSchedule() {
            try {
                String[] f = Files.readString(Path.of("/proc/thread-self/schedstat")).trim()
                        .split("\\s+");
                ran.addAndGet(Long.parseLong(f[0]));
                waited.addAndGet(Long.parseLong(f[1]));
            } catch (IOException | RuntimeException e) {
                // not Linux: nothing to add, and the grader reads the zeros as "not known"
            }
        }

        /** Puts ids first, first + acceptors, ...: the acceptors share 1..PER_TRIAL between them. */
        void accept(int first) {
            String me = Thread.currentThread().getName();
            try {
                for (int id = first; id <= PER_TRIAL; id += acceptors) {
                    // The traced queue stays short (TRACED_WINDOW), but never by a wait the watchdog would take for a
                    // livelock: when no take comes for STALL_MS the acceptor goes on, and a hang stays a hang.
                    long seen = taken.get(), since = System.nanoTime();
                    while (window > 0 && put.get() - taken.get() >= window && violation.get() == null
                            && System.nanoTime() < until) {
                        if (taken.get() != seen) {
                            seen = taken.get();
                            since = System.nanoTime();
                        } else if (System.nanoTime() - since > STALL_MS / 2 * 1_000_000L) {
                            break;
                        }
                        Thread.yield();
                    }
                    event(me, "put(" + id + ")");
                    handoff.put(id);
                    put.incrementAndGet();
                }
                acceptorsDone.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | Error e) {
                threw(me, "put", e);
            } finally {
                countSchedule();
            }
        }

        /** A put or take that throws ends its thread: a verdict, not a trial that waits for nothing. */
        void threw(String me, String op, Throwable e) {
            ending.putIfAbsent(me, op + " threw " + e);
            violation.compareAndSet(null, "Threw: " + me + "'s " + op + "() threw " + e);
        }

        void work() {
            String me = Thread.currentThread().getName();
            try {
                while (true) {
                    Integer id = handoff.take();
                    event(me, "take() → " + id);
                    if (id == null || id < 1 || id > PER_TRIAL) {
                        ending.putIfAbsent(me, "took " + id + " (never accepted)");
                        violation.compareAndSet(null, "NoInvented: " + me + " took " + id + ", which was never accepted");
                        return;
                    }
                    synchronized (seen) {
                        if (seen.get(id)) {
                            ending.putIfAbsent(me, "took " + id + " a second time");
                            violation.compareAndSet(null, "NoDuplicate: connection " + id + " was taken twice");
                            return;
                        }
                        seen.set(id);
                    }
                    taken.incrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | Error e) {
                threw(me, "take", e);
            } finally {
                countSchedule();
            }
        }

        /** The last events, in order, then where each thread is now. */
        void record(Verdict v) {
            List<String[]> events = new ArrayList<>();
            for (String[] e : log) {
                if (e != null) {
                    events.add(e);
                }
            }
            events.sort((a, b) -> Long.compare(Long.parseLong(a[0]), Long.parseLong(b[0])));
            for (String[] e : events.subList(Math.max(0, events.size() - 12), events.size())) {
                v.steps.add(new String[] {e[1], e[2], ""});
            }
            for (Thread t : threads) {
                v.ending.put(t.getName(), ending.getOrDefault(t.getName(), where(t)));
            }
        }

        static String where(Thread t) {
            Thread.State s = t.getState();
            for (StackTraceElement f : t.getStackTrace()) {
                if (f.getClassName().startsWith("handofflab.handoffs.")) {
                    return s + " in " + f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1) + "."
                            + f.getMethodName() + " (" + f.getFileName() + ":" + f.getLineNumber() + ")";
                }
            }
            return s.toString();
        }
    }
}
