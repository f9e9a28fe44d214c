package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests' side of exactly-once: workers take ids 0..total-1 from a handoff until a -1 stop
 * marker, and the ledger records every id they got.
 */
final class ExactlyOnceLedger {
    private final int total;
    private final long stallNanos;
    private final BitSet seen;
    private final AtomicInteger duplicates = new AtomicInteger(), invented = new AtomicInteger(), taken = new AtomicInteger();

    ExactlyOnceLedger(int total) {
        this(total, 30);
    }

    /** A ledger whose {@link #awaitAllTaken} gives up after {@code stallSeconds} without an id taken. */
    ExactlyOnceLedger(int total, int stallSeconds) {
        this.total = total;
        this.stallNanos = stallSeconds * 1_000_000_000L;
        seen = new BitSet(total);
    }

    /** A worker (not started) that takes from {@code h} until it gets the stop marker -1. */
    Thread worker(Handoff<Integer> h) {
        return new Thread(() -> {
            try {
                for (Integer x = h.take(); x == null || x != -1; x = h.take()) {
                    taken.incrementAndGet();
                    if (x == null || x < 0 || x >= total) {
                        invented.incrementAndGet();
                        continue;
                    }
                    synchronized (seen) {
                        if (seen.get(x)) {
                            duplicates.incrementAndGet();
                        }
                        seen.set(x);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /**
     * Waits until every id has been taken; a lost one fails the test once no worker has taken anything for 30 s (by default),
     * instead of hanging it. A stall, not a total time: beside other work a spinning handoff may take minutes for
     * all 50 000 ids (one took over 60 s at a load of 13 to 57 on 2 cores) while it still moves every second.
     */
    void awaitAllTaken() throws InterruptedException {
        int last = -1;
        long stalledSince = System.nanoTime();
        while (taken.get() < total && System.nanoTime() - stalledSince < stallNanos) {
            int now = taken.get();
            if (now != last) {
                last = now;
                stalledSince = System.nanoTime();
            }
            Thread.sleep(1);
        }
        assertTrue(taken.get() >= total, "NoLoss: only " + taken.get() + " of " + total
                + " taken, and none for " + stallNanos / 1_000_000_000L + " s");
    }

    void assertExactlyOnce() {
        assertEquals(0, duplicates.get(), "NoDuplicate");
        assertEquals(0, invented.get(), "NoInvented");
        assertEquals(total, seen.cardinality(), "NoLoss");
    }
}
