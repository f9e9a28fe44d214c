package handofflab.checks;

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
        Thread spinner = new Thread(() -> {
            while (go.get()) {
                Thread.onSpinWait();
            }
        }, "spinner-probe");
        spinner.start();
        try {
            assertTrue(PreThreaded.anyRunnable(List.of(spinner)), "a spinning thread is running or waits for a core: R");
            assertFalse(PreThreaded.stuck(List.of(spinner)));
        } finally {
            go.set(false);
            spinner.join();
        }
    }

    @Test
    void threadsWaitingForEverAreStuckAndNotRunnable() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only: the kernel's view of a thread is /proc");
        Object never = new Object();
        Thread waiter = new Thread(() -> {
            synchronized (never) {
                try {
                    never.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "waiter-probe");
        waiter.start();
        try {
            for (int i = 0; i < 20_000 && waiter.getState() != Thread.State.WAITING; i++) {
                Thread.sleep(1);
            }
            assertTrue(PreThreaded.allParked(List.of(waiter)));
            assertFalse(PreThreaded.anyRunnable(List.of(waiter)), "a thread in wait() sleeps in the kernel: S");
            assertTrue(PreThreaded.stuck(List.of(waiter)));
        } finally {
            waiter.interrupt();
            waiter.join();
        }
    }
}
