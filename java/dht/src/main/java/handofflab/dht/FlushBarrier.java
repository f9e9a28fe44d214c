package handofflab.dht;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The collective barrier of HASH_Flush, held by process 0's service thread (which alone touches it): the p barrier
 * requests of one flush are answered together once the last has come; an origin whose connection ended can never
 * come, so then every waiting one is told so instead of waiting for ever.
 */
final class FlushBarrier {
    private final int processes;
    private final List<Incoming> waiting = new ArrayList<>();
    private final Set<Integer> gone = new TreeSet<>();  // origins whose connection ended

    FlushBarrier(int processes) {
        this.processes = processes;
    }

    /** A barrier request, or (op null) the news that its origin's connection ended; {@code release} answers one. */
    void arrive(Incoming m, Consumer<Incoming> release) {
        if (m.op == null) {
            gone.add(m.from.originId);
        } else {
            waiting.add(m);
        }
        // (After the last flush every process ends, and no barrier is pending then.)
        if (!waiting.isEmpty() && !gone.isEmpty()) {
            for (Incoming b : waiting) {
                b.from.reply(() -> b.from.error(b.id, "process " + gone.iterator().next() + " ended before it "
                        + "reached the barrier of HASH_Flush"));
            }
            waiting.clear();
        } else if (waiting.size() == processes) {  // the last process has flushed: release them all
            waiting.forEach(release);
            waiting.clear();
        }
    }
}
