package handofflab.servers;

import java.util.EnumMap;
import java.util.HashSet;
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
        TIMEOUT(true, "timeout: no complete request in time (a half-open or stalled client)"),
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
        return sb.append(any ? "" : "none").toString();
    }

    /** The same, as one JSON object (for `./lab bench`). */
    public String json() {
        StringBuilder sb = new StringBuilder("{\"accepted\": " + accepted() + ", \"served\": " + served());
        for (Problem p : Problem.values()) {
            sb.append(", \"").append(p.name().toLowerCase()).append("\": ").append(count(p));
        }
        return sb.append('}').toString();
    }
}
