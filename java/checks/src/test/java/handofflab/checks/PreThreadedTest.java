package handofflab.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A hang is what the kernel says too: a thread parked in Java is stuck only if the kernel does not show it runnable.
 * (A CI run beside other load once judged a class that spins round its monitor "deadlock": its woken thread still read
 * BLOCKED while it waited for a core.) The kernel's view is read from /proc, so these tests need Linux.
 */
class PreThreadedTest {
    @Test
    void aSpinningThreadIsRunnableAndNeverStuck() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only: the kernel's view of a thread is /proc");
        AtomicBoolean go = new AtomicBoolean(true);
        // the kernel knows the thread by its Java name only once the thread itself has run (the JVM names it from
        // inside): asked straight after start(), a thread not yet given a core beside busy loops was not found
        java.util.concurrent.CountDownLatch spinning = new java.util.concurrent.CountDownLatch(1);
        Thread spinner = new Thread(() -> {
            spinning.countDown();
            while (go.get()) {
                Thread.onSpinWait();
            }
        }, "spinner-probe");
        spinner.start();
        try {
            spinning.await();
            // looked at more than once: even a spinner sleeps in the kernel for a moment while the JVM holds a safepoint
            // (a JIT install, a GC), and beside two busy loops one look once fell in such a moment
            boolean seen = false;
            for (int look = 0; look < 100 && !seen; look++) {
                seen = PreThreaded.anyRunnable(List.of(spinner));
                if (!seen) {
                    Thread.sleep(10);
                }
            }
            assertTrue(seen, "a spinning thread is running or waits for a core (R) at one of 100 looks 10 ms apart");
            assertFalse(PreThreaded.stuck(List.of(spinner)));
        } finally {
            go.set(false);
            spinner.join();
        }
    }

    @Test
    void threadsWaitingForEverAreStuckAndNotRunnable() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only: the kernel's view of a thread is /proc");
        Thread waiter = waitingForEver("waiter-probe");
        try {
            assertTrue(PreThreaded.allParked(List.of(waiter)));
            assertFalse(PreThreaded.anyRunnable(List.of(waiter)), "a thread in wait() sleeps in the kernel: S");
            assertTrue(PreThreaded.stuck(List.of(waiter)));
        } finally {
            waiter.interrupt();
            waiter.join();
        }
    }

    @Test
    void aLongNameIsFoundAsTheKernelCutsItAndANapperWakesOftenWhereAWaiterDoesNot() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only: the kernel's view of a thread is /proc");
        AtomicBoolean go = new AtomicBoolean(true);
        java.util.concurrent.CountDownLatch napping = new java.util.concurrent.CountDownLatch(1);  // named: see above
        Thread napper = new Thread(() -> {
            napping.countDown();
            while (go.get()) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "a-napper-with-a-name-longer-than-fifteen");
        napper.start();
        napping.await();
        Thread waiter = waitingForEver("a-waiter-with-a-name-longer-than-fifteen");
        try {
            assertEquals(1, PreThreaded.kernelTasks(List.of(napper)).size(), "found by its first 15 characters");
            long napperBefore = DepthProbe.wakeUps(napper), waiterBefore = DepthProbe.wakeUps(waiter);
            Thread.sleep(200);
            long napped = DepthProbe.wakeUps(napper) - napperBefore, waited = DepthProbe.wakeUps(waiter) - waiterBefore;
            // ~200 naps in 200 ms on a quiet machine; a busy one delays each wake-up, so far fewer, never as few as 20
            assertTrue(napped > DepthProbe.POLL_WAKES, "a 1 ms napper woke only " + napped + " times in 200 ms");
            assertTrue(waited <= 1, "a thread in wait() woke " + waited + " times while nobody notified it");
        } finally {
            go.set(false);
            napper.join();
            waiter.interrupt();
            waiter.join();
        }
    }

    /** A thread in wait() that nobody notifies, returned once Java shows it WAITING (interrupt it to end it). */
    private static Thread waitingForEver(String name) throws InterruptedException {
        Object never = new Object();
        Thread waiter = new Thread(() -> {
            synchronized (never) {
                try {
                    never.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, name);
        waiter.start();
        for (int i = 0; i < 20_000 && waiter.getState() != Thread.State.WAITING; i++) {
            Thread.sleep(1);
        }
        return waiter;
    }
}
