package handofflab.labs.mutants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import handofflab.handoffs.Handoff;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** A reference solution of lab "mutants": exactly-once under a race, many short trials. */
class HandoffTests {
    static final int ITEMS = 500;

    @Test
    void oneThreadGetsBackWhatItPut() throws InterruptedException {
        Handoff<Integer> h = Subject.create();
        h.put(42);
        assertEquals(42, h.take());
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

    /**
     * One acceptor and one worker in lockstep on a handoff that holds one connection: each round
     * the worker takes it while the acceptor puts the next, released at the same instant. A put
     * and a take that meet on a nearly empty handoff are where a queue without its dummy node
     * loses a node; random races reach that moment rarely, lockstep rounds reach it in most rounds.
     * Five repetitions of 1.5 s (4.5 s each at most): beside two busy loops on 2 cores one 2.5 s
     * run missed it 1 time in 20, so one alone would kill by luck.
     */
    @RepeatedTest(5)
    void aTakeAndAPutMeetingOnOneConnection() throws Exception {
        Handoff<Integer> h = Subject.create();
        AtomicInteger round = new AtomicInteger();  // the acceptor opens a round, the worker closes it
        AtomicInteger rounds = new AtomicInteger(-1);
        BitSet seen = new BitSet();
        AtomicReference<String> wrong = new AtomicReference<>();
        long end = System.nanoTime() + 1_500_000_000L;
        h.put(1);
        Thread acceptor = new Thread(() -> {
            try {
                int r = 1;
                for (; System.nanoTime() < end; r++) {
                    while (round.get() != 2 * r - 2) {
                        if (System.nanoTime() > end) {
                            rounds.set(r - 1);   // the worker is stuck in round r-1's take
                            return;
                        }
                        Thread.onSpinWait();     // the worker has taken round r-1's connection
                    }
                    round.set(2 * r - 1);        // go: take connection r while r+1 goes in
                    for (int d = r % 8; d > 0; d--) {
                        Thread.onSpinWait();     // the worker sees "go" a little later: sweep the offsets
                    }
                    h.put(r + 1);
                }
                rounds.set(r - 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread worker = new Thread(() -> {
            try {
                for (int r = 1; ; r++) {
                    while (round.get() != 2 * r - 1) {
                        if (rounds.get() >= 0 && r > rounds.get()) {
                            return;
                        }
                        Thread.onSpinWait();
                    }
                    Integer id = h.take();
                    if (id == null || seen.get(id)) {
                        wrong.compareAndSet(null, "round " + r + ": took " + id);
                        return;
                    }
                    seen.set(id);
                    round.set(2 * r);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        acceptor.setDaemon(true);
        worker.setDaemon(true);
        acceptor.start();
        worker.start();
        acceptor.join(2500);
        assertFalse(acceptor.isAlive(), "a put never returned in lockstep rounds");
        worker.join(1000);
        assertFalse(worker.isAlive(), "a take never returned in lockstep round " + (seen.cardinality() + 1)
                + " although a connection was put (a lost one, or a lost wake-up)");
        if (wrong.get() != null) {
            fail(wrong.get() + ", which was never put or was taken before");
        }
        // One connection is left, the one put in the last round; a lost node leaves none.
        AtomicReference<Integer> last = new AtomicReference<>();
        Thread drain = new Thread(() -> {
            try {
                last.set(h.take());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        drain.setDaemon(true);
        drain.start();
        drain.join(1000);
        assertFalse(drain.isAlive(), "after " + rounds.get() + " rounds, the connection put last was never taken: "
                + "the handoff lost one (" + (rounds.get() + 1 - seen.cardinality()) + " missing)");
        seen.set(last.get());
        assertEquals(rounds.get() + 1, seen.cardinality(), "not every connection was taken once");
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
