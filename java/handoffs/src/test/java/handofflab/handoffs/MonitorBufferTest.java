package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** MonitorBuffer's behaviour with real threads. No assertion here depends on timing. */
class MonitorBufferTest {

    @Test
    void handsItemsOverInPutOrder() throws InterruptedException {
        MonitorBuffer<Integer> b = new MonitorBuffer<>(3);
        for (int round = 0; round < 4; round++) {  // wraps around the ring
            b.put(10 * round);
            b.put(10 * round + 1);
            assertEquals(2, b.size());
            assertEquals(10 * round, b.take());
            assertEquals(10 * round + 1, b.take());
        }
        assertEquals(0, b.size());
    }

    @Test
    void refusesBadCapacityAndNull() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new MonitorBuffer<Integer>(0));
        assertTrue(e.getMessage().contains("capacity"), e.getMessage());
        assertThrows(NullPointerException.class, () -> new MonitorBuffer<Integer>(1).put(null));
    }

    @Test
    @Timeout(30)
    void putWaitsForRoomAndTakeWaitsForAnItem() throws Exception {
        MonitorBuffer<Integer> b = new MonitorBuffer<>(1);
        b.put(1);
        Thread acceptor = TestThreads.start(() -> b.put(2));
        TestThreads.awaitState(acceptor, Thread.State.WAITING);   // full: the acceptor must wait, not overwrite
        assertEquals(1, b.size());
        assertEquals(1, b.take());                     // makes room and wakes it
        acceptor.join();
        assertEquals(2, b.take());

        List<Integer> got = new ArrayList<>();
        Thread worker = TestThreads.start(() -> got.add(b.take()));
        TestThreads.awaitState(worker, Thread.State.WAITING);     // empty: the worker must wait, not take null
        b.put(3);
        worker.join();
        assertEquals(List.of(3), got);
    }

    @Test
    @Timeout(60)
    void everyItemIsTakenExactlyOnceUnderContention() throws Exception {
        int acceptorCount = 2, workers = 3, perAcceptor = 50_000, total = acceptorCount * perAcceptor;
        MonitorBuffer<Integer> b = new MonitorBuffer<>(4);
        ExactlyOnceLedger ledger = new ExactlyOnceLedger(total);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            threads.add(ledger.worker(b));
        }
        List<Thread> acceptors = new ArrayList<>();
        for (int a = 0; a < acceptorCount; a++) {
            int base = a * perAcceptor;
            acceptors.add(TestThreads.thread(() -> {
                for (int i = 0; i < perAcceptor; i++) {
                    b.put(base + i);
                }
            }));
        }
        threads.forEach(Thread::start);
        acceptors.forEach(Thread::start);
        for (Thread a : acceptors) {
            a.join();
        }
        for (int w = 0; w < workers; w++) {
            b.put(-1);  // one stop marker per worker, after every real item
        }
        for (Thread t : threads) {
            t.join();
        }
        ledger.assertExactlyOnce();
    }

    // The ring's helpers assert that their caller holds the monitor (JPF and these tests run asserts; Lincheck, whose
    // monitors are its own, runs with -da): a call from outside it is named, in each helper that reads or moves items.
    @Test
    void aRingHelperCalledOutsideItsMonitorIsNamed() throws InterruptedException {
        org.junit.jupiter.api.Assumptions.assumeTrue(Ring.class.desiredAssertionStatus(), "the JVM runs without -ea");
        MonitorBuffer<Integer> b = new MonitorBuffer<>(2);
        b.put(1);
        for (Runnable outside : List.<Runnable>of(b::isFull, b::isEmpty, () -> b.insert(2), b::extract,
                b::extractNewest, () -> b.step("wait"))) {
            AssertionError e = assertThrows(AssertionError.class, outside::run);
            assertTrue(e.getMessage().contains("outside the monitor"), e.getMessage());
        }
        synchronized (b) {
            assertTrue(!b.isEmpty() && !b.isFull());  // inside it, the same calls are quiet
        }
        assertEquals(1, b.take());
    }
}
