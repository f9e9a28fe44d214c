package handofflab.dht;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A target's receive buffers (Malard &amp; Stewart, Sec. 2.2): a header handler takes one from the pool for each
 * request's values, waiting while none is free (the back-pressure an origin feels), and the completion queue gives it
 * back once the request's reply is out. The pool knows its free buffers by identity, so a buffer given back twice is
 * seen, not read into by two requests at once.
 */
final class ReceiveBuffers {
    final int count;
    private final BlockingQueue<int[]> pool;
    private final Set<int[]> free = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    private final AtomicInteger released = new AtomicInteger();   // buffers given back, ever
    private final AtomicLong waitNanos = new AtomicLong();          // the header handlers' waits for a free one, summed

    ReceiveBuffers(int count, int ints) {
        this.count = count;
        this.pool = new ArrayBlockingQueue<>(count);
        for (int i = 0; i < count; i++) {
            int[] b = new int[ints];
            pool.add(b);
            free.add(b);
        }
    }

    /**
     * A free buffer, waiting while none is; null once {@code broken} (at once) or {@code closed} (while waiting) says
     * so: a completion queue known to keep every buffer for good, or the target closing.
     */
    int[] take(BooleanSupplier broken, BooleanSupplier closed) throws InterruptedException {
        if (broken.getAsBoolean()) {
            return null;
        }
        int[] b = pool.poll();
        if (b != null) {
            free.remove(b);
            return b;
        }
        long t = System.nanoTime();
        try {
            while (true) {
                b = pool.poll(100, TimeUnit.MILLISECONDS);
                if (b != null) {
                    free.remove(b);
                    return b;
                }
                if (broken.getAsBoolean() || closed.getAsBoolean()) {
                    return null;
                }
            }
        } finally {
            waitNanos.addAndGet(System.nanoTime() - t);
        }
    }

    /** Gives {@code b} back to the pool; false, and nothing given, if it is there already (back twice). */
    boolean giveBack(int[] b) throws InterruptedException {
        if (!free.add(b)) {
            return false;
        }
        released.incrementAndGet();  // first: a buffer counted back too soon can only delay Target.checkKept
        pool.put(b);
        return true;
    }

    /** Buffers given back since the start. */
    int released() {
        return released.get();
    }

    /** The header handlers' time waiting for a free buffer, summed over them. */
    long waitNanos() {
        return waitNanos.get();
    }
}
