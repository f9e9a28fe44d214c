package handofflab.servers;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import handofflab.handoffs.RecordedHandoff;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pre-threaded with a handoff (Table 1, rows 4-7): one acceptor thread puts each accepted
 * connection into a {@link Handoff}; {@code workers} threads take and serve. The designs differ
 * only in the handoff: SharedBuffer ({@code MonitorBuffer}), TwoLockQueue (the paper's
 * "concurrent queue"), ParallelHashTable, and Pipes ({@code PipeHandoff}) - each model-checked
 * in specs/ and by `./lab check java`.
 *
 * <p>Shutdown keeps exactly-once: the acceptor stops, the server waits until every connection
 * handed off has been taken, and only then gives each worker a STOP. (The PHT is not FIFO: a STOP
 * put earlier could overtake a connection and strand it.) A handoff that loses a connection is
 * reported by name when the grace period ends.
 */
public final class PreThreadedServer extends TcpServer {
    private Handoff<Connection> handoff;  // set once before start(): the class, or it wrapped by record()
    private RecordedHandoff<Connection> recorder;
    private Path traceFile;
    private final String handoffName;
    private final Thread acceptor = new Thread(this::accepting, "acceptor");
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicLong handedOff = new AtomicLong();
    private final AtomicLong taken = new AtomicLong();
    private final AtomicLong serving = new AtomicLong();  // workers inside handleRequest now
    private volatile String lostReport = "";
    private volatile boolean lossProven;  // lostReport is a proof (see untaken), not the end of a grace period

    /** The design's own handoff class (the catalog's), unless the config names another. */
    public PreThreadedServer(ServerConfig config) throws IOException {
        this(config, handoffOf(config), build(config, handoffOf(config)));  // built before binding
    }

    private static String handoffOf(ServerConfig config) {
        return config.handoff() != null ? config.handoff() : Designs.of(config.design()).handoff();
    }

    private PreThreadedServer(ServerConfig config, String handoffName, Handoff<Connection> handoff) throws IOException {
        super(config);
        this.handoffName = handoffName;
        this.handoff = handoff;
        for (int i = 0; i < config.workers(); i++) {
            workers.add(new Thread(this::working, "worker-" + i));
        }
    }

    private static Handoff<Connection> build(ServerConfig config, String handoffName) {
        config.validate();
        boolean pipes = "workers".equals(Designs.of(config.design()).sizedBy());  // one channel per worker
        try {
            return Handoffs.create(handoffName, pipes ? config.workers() : config.slots());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(handoffName + " cannot be built with "
                    + (pipes ? "--workers " + config.workers() : "--slots " + config.slots()) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Logs every put and take from outside the handoff (trace validation, ./lab serve --trace) until
     * every connection handed off has been taken at shutdown, then writes the log to {@code file}: the
     * workers' STOPs are no connections, and are left out. Call it before {@link #start()}.
     */
    public void record(Path file) {
        recorder = new RecordedHandoff<>(handoff);
        handoff = recorder;
        traceFile = file;
    }

    /** Ends the log and writes it, once: at shutdown, before the STOPs, or when draining failed. */
    private void writeTrace() {
        if (recorder == null || traceFile == null) {
            return;
        }
        recorder.stop();
        try {
            int events = recorder.writeTo(traceFile);
            System.out.println("trace: " + events + " events of " + handoffName + " written to " + traceFile);
        } catch (IOException e) {
            System.err.println("trace: could not write " + traceFile + ": " + e.getMessage());
        }
        traceFile = null;
    }

    public String handoffName() {
        return handoffName;
    }

    @Override
    public void start() {
        workers.forEach(Thread::start);
        acceptor.start();
    }

    // ANCHOR: prethreaded
    private void accepting() {
        try {
            acceptEach(s -> {
                handoff.put(new Connection(s));
                handedOff.incrementAndGet();
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();  // forced shutdown
        } catch (RuntimeException e) {
            failed("put", e);
        }
    }

    private void working() {
        try {
            while (true) {
                Connection c = handoff.take();
                if (c == Connection.STOP) {
                    return;
                }
                if (c == null) {  // a buggy handoff (IfBuffer) returns what nobody put
                    stats.problem(ServerStats.Problem.INVENTED);
                    continue;
                }
                serving.incrementAndGet();
                synchronized (taken) {
                    taken.incrementAndGet();
                    taken.notifyAll();
                }
                try {
                    handleRequest(c);
                } finally {
                    serving.decrementAndGet();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();  // forced shutdown
        } catch (RuntimeException e) {
            failed("take", e);
        }
    }
    // ANCHOR_END: prethreaded

    /** A student's handoff that throws stops one thread, visibly, not the server. */
    private void failed(String operation, RuntimeException e) {
        stats.problem(ServerStats.Problem.HANDOFF_FAILED);
        System.err.println(Thread.currentThread().getName() + ": " + handoffName + "." + operation + " threw " + e
                + "; this thread stops");
    }

    @Override
    protected boolean drain(long deadlineNanos) throws InterruptedException {
        try {
            return draining(deadlineNanos);
        } finally {
            writeTrace();  // what was recorded, also when a broken handoff kept the server from draining
        }
    }

    private boolean draining(long deadlineNanos) throws InterruptedException {
        if (!join(acceptor, deadlineNanos)) {
            boolean stuck = serving.get() == 0 && allWaiting();  // read before the interrupts below wake them
            acceptor.interrupt();
            workers.forEach(Thread::interrupt);
            lossProven = stuck;
            lostReport = serving.get() > 0
                    ? "the acceptor was still waiting to put into a full " + handoffName + " while " + serving.get()
                      + " worker(s) were serving when the grace period ended (a longer --grace-ms lets them finish)"
                    : stuck ? "the acceptor was still blocked in " + handoffName + ".put while every worker waited "
                      + "and none was serving: the handoff is full, and no worker takes from it"
                    : "the acceptor was still waiting to put into a full " + handoffName + " while workers were "
                      + "running but none was serving when the grace period ended (a busy machine, or a handoff "
                      + "that spins: a longer --grace-ms lets them finish)";
            return false;
        }
        synchronized (taken) {
            while (taken.get() < handedOff.get()) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    lostReport = untaken();
                    workers.forEach(Thread::interrupt);
                    return false;
                }
                taken.wait(Math.max(1, left / 1_000_000));
            }
        }
        writeTrace();  // every connection is taken: the STOPs below are not recorded
        // One STOP per worker (with pipes each STOP claims a different worker), from a thread of its
        // own: a put that blocks forever (a broken handoff) must not outlive the grace period.
        Thread stopper = new Thread(() -> {
            try {
                for (int i = 0; i < workers.size(); i++) {
                    handoff.put(Connection.STOP);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "stopper");
        stopper.start();
        if (!join(stopper, deadlineNanos)) {
            stopper.interrupt();
            workers.forEach(Thread::interrupt);
            lostReport = "the workers' STOPs could not all be put into " + handoffName;
            return false;
        }
        for (Thread t : workers) {
            if (!join(t, deadlineNanos)) {
                workers.forEach(Thread::interrupt);
                lostReport = serving.get() + " connection(s) still being served when the grace period ended "
                        + "(a longer --grace-ms lets them finish)";
                return false;
            }
        }
        return true;
    }

    /**
     * What the handoff still holds when the grace period ends, and why. It is blamed only when its
     * own ledger proves a loss: connections put and never taken while no worker is serving and
     * every worker waits in take().
     */
    private String untaken() {
        long queued = handedOff.get() - taken.get(), busy = serving.get();
        if (busy == 0 && allWaiting()) {
            lossProven = true;
            return queued + " connection(s) handed off to " + handoffName + " were never taken while every worker "
                    + "waited in take(): the handoff lost them";
        }
        return queued + " connection(s) still queued in " + handoffName + " and " + busy + " being served when the "
                + "grace period ended (a request may ask for up to " + Protocol.MAX_DELAY_MS / 1000 + " s of work: "
                + "a longer --grace-ms lets them finish)";
    }

    /** Every worker parked or blocked: none is running (a worker that spins in take() is running). */
    private boolean allWaiting() {
        return workers.stream().allMatch(t -> t.getState() == Thread.State.WAITING
                || t.getState() == Thread.State.BLOCKED || t.getState() == Thread.State.TIMED_WAITING);
    }

    /** Whether the last shutdown that did not drain proved a loss or a hang (every worker waiting, none serving)
     *  rather than running out of its grace period with threads still running: a busy machine can do that. */
    public boolean lossProven() {
        return lossProven;
    }

    /** Why the last shutdown did not drain, or "". */
    public String lostReport() {
        return lostReport;
    }
}
