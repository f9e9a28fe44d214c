package handofflab.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/** What a server counts: connections accepted and served, and every problem by kind. Thread-safe. */
public final class ServerStats {

    /**
     * The ways a connection can go wrong; each is counted, none stops the server. The first seven end
     * an accepted connection unserved (so accepted = served + those, once the server has drained);
     * the others count events of another kind.
     */
    public enum Problem {
        EMPTY(true, "empty: the client closed without sending a request"),
        OVERSIZED(true, "oversized: a request longer than " + Protocol.MAX_REQUEST_BYTES + " bytes"),
        MALFORMED(true, "malformed: not '<id> [<millis>]'"),
        TIMEOUT(true, "timeout: no complete request in time (a half-open or stalled client; or, when the ledger says "
                + "the listen queue overflowed, possibly a client the server's own queue delayed)"),
        RESET(true, "reset: the client reset or closed the connection before it read the reply"),
        EXHAUSTED(true, "exhausted: the server ran out of a resource (file descriptors, threads, memory) while "
                + "serving it; it serves again once the pressure ends"),
        REFUSED_AT_SHUTDOWN(true, "refused at shutdown: the client connected, but the server was stopping and no "
                + "worker took the connection within half the grace (a longer --grace-ms, or more workers); it was "
                + "closed unread: the server's refusal, not the client's fault"),
        DUPLICATE(false, "duplicate: a worker got a connection another worker already served (the handoff duplicated it)"),
        INVENTED(false, "invented: a worker took null from the handoff, a connection nobody put"),
        HANDOFF_FAILED(false, "handoff failed: put or take threw an exception (the worker or acceptor stopped)"),
        DUPLICATE_ID(false, "duplicate id: the same request id was served twice (within the last "
                + RecentIds.AT_LEAST + " ids served)"),
        ACCEPT_FAILED(false, "accept failed: the operating system refused a connection (e.g. out of file descriptors)");

        /** Whether it ends an accepted connection unserved. */
        public final boolean endsConnection;
        public final String meaning;

        Problem(boolean endsConnection, String meaning) {
            this.endsConnection = endsConnection;
            this.meaning = meaning;
        }
    }

    /**
     * The ids served lately, in bounded memory: two generations of at most {@link #AT_LEAST} ids each,
     * the older dropped when the newer fills. A duplicate is caught when it comes within the last
     * AT_LEAST ids served (a handoff that duplicates a connection serves it twice at about the same
     * time); the heap it takes stays under 2 x AT_LEAST ids (about 8 MB), however long the server runs.
     */
    static final class RecentIds {
        static final int AT_LEAST = 1 << 16;
        private Set<Long> newer = new HashSet<>(), older = new HashSet<>();

        /** False when {@code id} was served lately. */
        synchronized boolean add(long id) {
            if (older.contains(id) || !newer.add(id)) {
                return false;
            }
            if (newer.size() == AT_LEAST) {
                older = newer;
                newer = new HashSet<>();
            }
            return true;
        }

        synchronized int size() {
            return newer.size() + older.size();
        }
    }

    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong served = new AtomicLong();
    private final Map<Problem, AtomicLong> problems = new EnumMap<>(Problem.class);
    final RecentIds servedIds = new RecentIds();
    private final long overflowsAtStart = kernelListenOverflows();

    public ServerStats() {
        for (Problem p : Problem.values()) {
            problems.put(p, new AtomicLong());
        }
    }

    void countAccepted() {
        accepted.incrementAndGet();
    }

    void served(long id) {
        served.incrementAndGet();
        if (!servedIds.add(id)) {
            problem(Problem.DUPLICATE_ID);
        }
    }

    void problem(Problem p) {
        problems.get(p).incrementAndGet();
    }

    public long accepted() {
        return accepted.get();
    }

    public long served() {
        return served.get();
    }

    public long count(Problem p) {
        return problems.get(p).get();
    }

    public long problems() {
        return problems.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /**
     * Accepted connections neither served nor ended by a counted problem: 0 once a server has
     * drained, unless one was cut off (a forced shutdown) or lost.
     */
    public long unaccounted() {
        long ended = served();
        for (Problem p : Problem.values()) {
            ended += p.endsConnection ? count(p) : 0;
        }
        return accepted() - ended;
    }

    /**
     * Connections the kernel dropped because a listen queue was full, since this server started: the server's
     * overload, which its clients see as a slow connect (the kernel retries the handshake) or, once a handshake
     * the client thinks complete was dropped, as a request that reaches the server seconds late. Linux counts
     * them for the whole machine (TcpExt ListenOverflows in /proc/net/netstat), not per socket, so another
     * server's overflows count too; -1 where the count cannot be read (another system).
     */
    public long listenOverflows() {
        long now = kernelListenOverflows();
        return now < 0 || overflowsAtStart < 0 ? -1 : now - overflowsAtStart;
    }

    /** Linux's ListenOverflows counter, or -1. */
    static long kernelListenOverflows() {
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc/net/netstat"));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        for (int i = 0; i + 1 < lines.size(); i++) {  // a line of names, then a line of values
            String[] names = lines.get(i).split("\\s+"), values = lines.get(i + 1).split("\\s+");
            if (names[0].equals("TcpExt:") && values[0].equals("TcpExt:")) {
                for (int k = 1; k < Math.min(names.length, values.length); k++) {
                    if (names[k].equals("ListenOverflows")) {
                        try {
                            return Long.parseLong(values[k]);
                        } catch (NumberFormatException e) {
                            return -1;
                        }
                    }
                }
            }
        }
        return -1;
    }

    /** One line for people: "accepted 2800, served 2800, problems: none". */
    public String summary() {
        StringBuilder sb = new StringBuilder("accepted " + accepted() + ", served " + served() + ", problems: ");
        boolean any = false;
        for (Problem p : Problem.values()) {
            if (count(p) > 0) {
                sb.append(any ? ", " : "").append(p.name().toLowerCase().replace('_', ' ')).append(' ').append(count(p));
                any = true;
            }
        }
        sb.append(any ? "" : "none");
        long overflows = listenOverflows();
        if (overflows > 0) {
            sb.append("; the listen queue overflowed ").append(overflows).append(" time(s) while it ran (Linux's count for "
                    + "the whole machine): clients waited for the server's queue, and a timeout among them may be "
                    + "the server's overload rather than a stalled client (a larger --backlog, up to "
                    + "net.core.somaxconn, or more workers)");
        }
        return sb.toString();
    }

    /** The same, as one JSON object (for `./lab bench`). */
    public String json() {
        StringBuilder sb = new StringBuilder("{\"accepted\": " + accepted() + ", \"served\": " + served());
        for (Problem p : Problem.values()) {
            sb.append(", \"").append(p.name().toLowerCase()).append("\": ").append(count(p));
        }
        return sb.append(", \"listen_overflows\": ").append(listenOverflows()).append('}').toString();
    }
}
