package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/**
 * FastPermits' promise beyond a counting semaphore's: its common case takes no lock. Its no-lost-wake-up argument is
 * checked by TLC (specs/FastPht.tla), Lincheck and JPF on FastPht, and its slip (LateWaiterPermits) is caught by
 * them; these tests show the fast path itself, with the monitor held by the test so that a path that takes it blocks.
 */
class FastPermitsTest {
    @Test
    void aPermitTakenAndGivenBackWithNobodyWaitingTakesNoMonitor() throws Exception {
        FastPermits permits = new FastPermits(1);
        Thread fast = TestThreads.thread(() -> {
            permits.acquire();
            permits.release();
        });
        synchronized (permits) {  // a path that took the monitor would block here until the test lets go
            fast.start();
            fast.join(10_000);
            assertFalse(fast.isAlive(), "acquire and release with a permit free and nobody waiting waited for the monitor: "
                    + fast.getState());
        }
        assertEquals(1, permits.available.get());
        assertEquals(0, permits.waiters);
    }

    @Test
    void aWaiterIsRegisteredAndAReleaseWakesIt() throws Exception {
        FastPermits permits = new FastPermits(0);
        Thread waiter = TestThreads.start(() -> permits.acquire());
        TestThreads.awaitState(waiter, Thread.State.WAITING);  // in wait(), registered: no clock decides this
        assertEquals(1, permits.waiters, "a thread in wait() is counted, so that a release knows to wake it");
        permits.release();
        waiter.join(10_000);
        assertFalse(waiter.isAlive(), "the release woke the registered waiter");
        assertEquals(0, permits.available.get());
        assertEquals(0, permits.waiters);
    }
}
