package handofflab.labs.mutants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import handofflab.handoffs.Handoff;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** BUGGY sample of lab "mutants": the reference plus a test that expects first-in first-out,
 *  which the PHT never promised: a false alarm, so no kill counts. */
class HandoffTests {
    static final int ITEMS = 500;

    @Test
    void oneThreadGetsBackWhatItPut() throws InterruptedException {
        Handoff<Integer> h = Subject.create();
        h.put(42);
        assertEquals(42, h.take());
    }

    @Test
    void connectionsComeOutInTheOrderTheyWentIn() throws InterruptedException {
        Handoff<Integer> h = Subject.create();
        int n = Math.min(3, Subject.capacity());
        for (int round = 0; round < 20; round++) {
            for (int i = 1; i <= n; i++) {
                h.put(round * 10 + i);
            }
            for (int i = 1; i <= n; i++) {
                assertEquals(round * 10 + i, h.take(), "FIFO");
            }
        }
    }

    @Test
    void aWaitingWorkerGetsTheNextPut() throws Exception {
        Handoff<Integer> h = Subject.create();
        AtomicReference<Integer> got = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                got.set(h.take());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        worker.start();
        Thread.sleep(50);
        h.put(7);
        worker.join(2000);
        assertFalse(worker.isAlive(), "the worker still waits after a put");
        assertEquals(7, got.get());
    }

    /** One acceptor, two workers, a race of ITEMS connections, repeated: none lost, none twice, none invented. */
    @Test
    void exactlyOnceUnderARace() throws Exception {
        long end = System.nanoTime() + 3_500_000_000L;
        int trials = 0;
        while (System.nanoTime() < end) {
            race(Subject.create(), ++trials);
        }
    }

    private static void race(Handoff<Integer> h, int trial) throws Exception {
        AtomicInteger left = new AtomicInteger(ITEMS);
        BitSet seen = new BitSet();
        AtomicReference<String> wrong = new AtomicReference<>();
        Runnable work = () -> {
            try {
                while (left.getAndDecrement() > 0) {
                    Integer id = h.take();
                    if (id == null || id < 1 || id > ITEMS) {
                        wrong.compareAndSet(null, "took " + id + ", which was never put");
                        return;
                    }
                    synchronized (seen) {
                        if (seen.get(id)) {
                            wrong.compareAndSet(null, "took " + id + " twice");
                            return;
                        }
                        seen.set(id);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Thread w1 = new Thread(work), w2 = new Thread(work);
        w1.setDaemon(true);
        w2.setDaemon(true);
        w1.start();
        w2.start();
        Thread acceptor = new Thread(() -> {
            try {
                for (int id = 1; id <= ITEMS; id++) {
                    h.put(id);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        for (Thread t : new Thread[] {acceptor, w1, w2}) {
            t.join(1000);
            if (wrong.get() != null) {
                fail("trial " + trial + ": a worker " + wrong.get());
            }
            assertFalse(t.isAlive(), "trial " + trial + ": nothing moved for 1 s (a lost wake-up, or a lost connection)");
        }
        assertEquals(ITEMS, seen.cardinality(), "trial " + trial + ": not every connection was taken");
    }
}
