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
    private final BitSet seen;
    private final AtomicInteger duplicates = new AtomicInteger(), invented = new AtomicInteger(), taken = new AtomicInteger();

    ExactlyOnceLedger(int total) {
        this.total = total;
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

    /** Waits until every id has been taken; a lost one fails the test after 30 s instead of hanging it. */
    void awaitAllTaken() throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (taken.get() < total && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(taken.get() >= total, "NoLoss: only " + taken.get() + " of " + total + " taken after 30 s");
    }

    void assertExactlyOnce() {
        assertEquals(0, duplicates.get(), "NoDuplicate");
        assertEquals(0, invented.get(), "NoInvented");
        assertEquals(total, seen.cardinality(), "NoLoss");
    }
}
