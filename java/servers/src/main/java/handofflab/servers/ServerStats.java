package handofflab.servers;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** What a server counts: connections accepted and served, and every problem by kind. Thread-safe. */
public final class ServerStats {

    /** The ways a connection can go wrong; each is counted, none stops the server. */
    public enum Problem {
        EMPTY("empty: the client closed without sending a request"),
        OVERSIZED("oversized: a request longer than " + Protocol.MAX_REQUEST_BYTES + " bytes"),
        MALFORMED("malformed: not '<id> [<millis>]'"),
        TIMEOUT("timeout: no complete request in time (a half-open or stalled client)"),
        RESET("reset: the client reset or closed the connection before the reply was written"),
        DUPLICATE("duplicate: a worker got a connection another worker already served (the handoff duplicated it)"),
        INVENTED("invented: a worker took null from the handoff, a connection nobody put"),
        HANDOFF_FAILED("handoff failed: put or take threw an exception (the worker or acceptor stopped)"),
        DUPLICATE_ID("duplicate id: the same request id was served twice"),
        ACCEPT_FAILED("accept failed: the operating system refused a connection (e.g. out of file descriptors)");

        public final String meaning;

        Problem(String meaning) {
            this.meaning = meaning;
        }
    }

    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong served = new AtomicLong();
    private final Map<Problem, AtomicLong> problems = new EnumMap<>(Problem.class);
    private final Set<Long> servedIds = ConcurrentHashMap.newKeySet();

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
