package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * FastBuffer's promises beyond a bounded buffer's: a put and a take that find room and a connection take no lock, and
 * whoever sleeps is registered, so that the other side wakes it. Exactly once and the absence of a lost wake-up are
 * checked by TLC (specs/FastBuffer.tla), Lincheck, stress and trace validation, and the slip (LateWaiterBuffer) is
 * caught by TLC, Lincheck and JPF; these tests show the paths themselves, with the monitor held by the test so that a
 * path that takes it blocks. No clock decides anything: a sleeping thread is seen in WAITING.
 */
class FastBufferTest {
    @Test
    void aPutAndATakeThatFindRoomAndAConnectionTakeNoMonitor() throws Exception {
        FastBuffer<Integer> buffer = new FastBuffer<>(2);
        Integer[] got = new Integer[2];
        Thread fast = TestThreads.thread(() -> {
            buffer.put(1);
            buffer.put(2);
            got[0] = buffer.take();
            got[1] = buffer.take();
        });
        synchronized (buffer) {  // a path that took the monitor would block here until the test lets go
            fast.start();
            fast.join(10_000);
            assertFalse(fast.isAlive(), "puts and takes with room and connections waited for the monitor: " + fast.getState());
        }
        assertEquals(1, got[0]);
        assertEquals(2, got[1], "a ring: the order of the puts");
        assertEquals(0, buffer.workersWaiting);
    }

    @Test
    void aSleepingWorkerIsRegisteredAndAPutWakesIt() throws Exception {
        FastBuffer<Integer> buffer = new FastBuffer<>(1);
        Integer[] got = new Integer[1];
        Thread worker = TestThreads.start(() -> got[0] = buffer.take());
        TestThreads.awaitState(worker, Thread.State.WAITING);  // past its looks, in wait()
        assertEquals(1, buffer.workersWaiting, "a worker in wait() is counted, so that a put knows to wake it");
        buffer.put(7);
        worker.join(10_000);
        assertFalse(worker.isAlive(), "the put woke the registered worker");
        assertEquals(7, got[0]);
        assertEquals(0, buffer.workersWaiting);
    }

    @Test
    void aFullRingMakesTheAcceptorSleepRegisteredUntilATakeEmptiesItsPlace() throws Exception {
        FastBuffer<Integer> buffer = new FastBuffer<>(1);
        buffer.put(1);
        Thread acceptor = TestThreads.start(() -> buffer.put(2));
        TestThreads.awaitState(acceptor, Thread.State.WAITING);
        assertTrue(buffer.acceptorWaiting, "the acceptor in wait() is registered, so that a take knows to wake it");
        assertEquals(1, buffer.take());
        acceptor.join(10_000);
        assertFalse(acceptor.isAlive(), "the take woke the registered acceptor");
        assertFalse(buffer.acceptorWaiting);
        assertEquals(2, buffer.take());
    }

    @Test
    void aRingWithNoPlaceIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new FastBuffer<Integer>(0));
        assertTrue(e.getMessage().contains("at least one place"), e.getMessage());
    }

    /** The padding that doubled the one-worker throughput holds only if the JVM keeps it: read the field offsets. */
    @Test
    void eachIndexIsOnACacheLineOfItsOwn() throws Exception {
        Field theUnsafe = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        sun.misc.Unsafe unsafe = (sun.misc.Unsafe) theUnsafe.get(null);
        List<Field> fields = new ArrayList<>();
        for (Class<?> c = FastBuffer.class; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    fields.add(f);
                }
            }
        }
        long put = unsafe.objectFieldOffset(FastBufferPutIndex.class.getDeclaredField("putIndex"));
        long take = unsafe.objectFieldOffset(FastBufferTakeAt.class.getDeclaredField("takeAt"));
        long last = 0;
        for (Field f : fields) {
            long at = unsafe.objectFieldOffset(f);
            last = Math.max(last, at);
            boolean padding = f.getDeclaringClass().getSimpleName().startsWith("FastBufferPad");
            if (f.getName().equals("putIndexSeen")) {  // the workers' copy: on their line, away from the acceptor's
                assertTrue(Math.abs(at - put) >= 128 && Math.abs(at - take) < 64, "putIndexSeen at " + at
                        + ": not on takeAt's line (" + take + ") or within 128 bytes of putIndex (" + put + ")");
            } else if (!padding && at != put && at != take) {
                assertTrue(Math.abs(at - put) >= 128 && Math.abs(at - take) >= 128, f.getName() + " at offset " + at
                        + " shares 128 bytes with putIndex (" + put + ") or takeAt (" + take + ")");
            }
        }
        assertTrue(take - put >= 128, "putIndex at " + put + ", takeAt at " + take + ": closer than 128 bytes");
        assertTrue(put >= 128 && last - take >= 120, "the padding before putIndex (" + put + ") or after takeAt (the "
                + "last field at " + last + ", takeAt at " + take + ") is less than 128 bytes");
    }
}
