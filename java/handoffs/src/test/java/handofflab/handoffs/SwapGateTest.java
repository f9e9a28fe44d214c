package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stress check's gate: it holds the swaps of the slots made while it was installed, and no others. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class SwapGateTest {
    @AfterEach
    void uninstall() {
        SwapGate.uninstall();
    }

    @Test
    void aHeldSwapWaitsOutsideItsSlotsLockUntilLetThrough() throws InterruptedException {
        SwapGate gate = SwapGate.install();
        SynchronizedRef<Integer> slot = new SynchronizedRef<>();
        SwapGate.uninstall();
        slot.set(7);
        gate.holdNext(1);
        AtomicReference<Integer> got = new AtomicReference<>();
        Thread taker = new Thread(() -> got.set(slot.swap(null)));
        taker.start();
        assertTrue(gate.awaitHeld(1, System.nanoTime() + 10_000_000_000L), "the swap was not held");
        assertEquals(7, slot.get(), "held before its swap: the slot still holds its item, and its lock is free");
        gate.letOneThrough();
        taker.join(10_000);
        assertEquals(7, got.get());
        assertNull(slot.get());
        assertEquals(0, gate.held());
        slot.set(8);
        assertEquals(8, slot.swap(null), "only the next swap was held");
    }

    @Test
    void aSlotMadeWithNoGateInstalledIsNeverHeld() throws InterruptedException {
        SwapGate gate = SwapGate.install();
        SwapGate.uninstall();
        gate.holdNext(1);
        SynchronizedRef<Integer> slot = new SynchronizedRef<>();
        slot.set(3);
        assertEquals(3, slot.swap(null));
        assertFalse(gate.awaitHeld(1, System.nanoTime() + 50_000_000L));
    }

    @Test
    void openingTheGateLetsEveryHeldSwapGo() throws InterruptedException {
        SwapGate gate = SwapGate.install();
        ParallelHashTable<Integer> table = new ParallelHashTable<>(2);
        SwapGate.uninstall();
        table.put(1);
        table.put(2);
        gate.holdNext(2);
        Thread[] takers = {new Thread(() -> take(table)), new Thread(() -> take(table))};
        for (Thread t : takers) {
            t.start();
        }
        assertTrue(gate.awaitHeld(2, System.nanoTime() + 10_000_000_000L), "both takes are held before their swap");
        gate.open();
        for (Thread t : takers) {
            t.join(10_000);
            assertFalse(t.isAlive());
        }
        assertEquals(0, gate.held());
    }

    private static void take(Handoff<Integer> h) {
        try {
            h.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
