package handofflab.servers;

/**
 * How to run one server. Defaults follow the paper's best settings (50 workers, 101 slots) with a
 * short simulated work time, so a lab run takes seconds rather than the paper's minutes.
 *
 * @param design   one of {@link Designs#names()}
 * @param handoff  for the pre-threaded designs: the handoff class to use instead of the design's
 *                 own (a catalog name such as "NotifyBuffer", or a student's full class name); else null
 */
public record ServerConfig(String design, String bind, int port, int workers, int slots, long delayMs,
                           long requestTimeoutMs, int backlog, String handoff) {

    /**
     * BACKLOG: the kernel's queue of connections not yet accepted (capped by net.core.somaxconn, 4096 here).
     * Issue 50's raw client saw 1 600 clients that connected at once overflow a queue of 1024 and 450-550 of
     * them cut after the read deadline, as stalled clients. ServersTest's burst (the same 1 600, idle 1 s) holds
     * at 256 and more here; at 64 four designs cut 1-15 and lost about 150; 4096 leaves room for a bigger burst.
     */
    public static final int WORKERS = 50, SLOTS = 101, BACKLOG = 4096;
    public static final long DELAY_MS = 25, REQUEST_TIMEOUT_MS = 5_000;
    /** Bounds that keep a typo from asking for millions of threads or a gigabyte of slots. */
    public static final int MAX_WORKERS = 10_000, MAX_SLOTS = 1_000_003;

    public static ServerConfig of(String design) {
        return new ServerConfig(design, "127.0.0.1", 0, WORKERS, SLOTS, DELAY_MS, REQUEST_TIMEOUT_MS, BACKLOG, null);
    }

    public ServerConfig withPort(int p) {
        return new ServerConfig(design, bind, p, workers, slots, delayMs, requestTimeoutMs, backlog, handoff);
    }

    public ServerConfig withWorkers(int w) {
        return new ServerConfig(design, bind, port, w, slots, delayMs, requestTimeoutMs, backlog, handoff);
    }

    public ServerConfig withSlots(int s) {
        return new ServerConfig(design, bind, port, workers, s, delayMs, requestTimeoutMs, backlog, handoff);
    }

    public ServerConfig withDelayMs(long d) {
        return new ServerConfig(design, bind, port, workers, slots, d, requestTimeoutMs, backlog, handoff);
    }

    public ServerConfig withRequestTimeoutMs(long t) {
        return new ServerConfig(design, bind, port, workers, slots, delayMs, t, backlog, handoff);
    }

    public ServerConfig withBacklog(int b) {
        return new ServerConfig(design, bind, port, workers, slots, delayMs, requestTimeoutMs, b, handoff);
    }

    public ServerConfig withHandoff(String h) {
        return new ServerConfig(design, bind, port, workers, slots, delayMs, requestTimeoutMs, backlog, h);
    }

    /** Refuses what cannot run, naming the fix (the message is shown to people as is). */
    public void validate() {
        Designs.Design d = Designs.of(design);  // an unknown design is refused with the designs' names
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port must be 0..65535 (0: any free port), got " + port);
        }
        if (workers < 1 || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("--workers must be at least 1 (and at most " + MAX_WORKERS + "), got " + workers);
        }
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new IllegalArgumentException("--slots must be at least 1 (and at most " + MAX_SLOTS + "), got " + slots);
        }
        if (delayMs < 0 || delayMs > Protocol.MAX_DELAY_MS) {
            throw new IllegalArgumentException("--delay-ms must be 0.." + Protocol.MAX_DELAY_MS + ", got " + delayMs);
        }
        if (requestTimeoutMs < 1 || requestTimeoutMs > 3_600_000) {
            throw new IllegalArgumentException("--request-timeout-ms must be 1..3600000 (an hour), got " + requestTimeoutMs);
        }
        if (backlog < 1 || backlog > 65_535) {
            throw new IllegalArgumentException("--backlog must be 1..65535, got " + backlog);
        }
        if (handoff != null && !d.preThreaded()) {
            throw new IllegalArgumentException("--handoff applies to the pre-threaded designs "
                    + Designs.names().stream().filter(n -> Designs.of(n).preThreaded()).toList() + ", not to " + design);
        }
    }
}
