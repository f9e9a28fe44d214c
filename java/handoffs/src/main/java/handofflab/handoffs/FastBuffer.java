package handofflab.handoffs;

import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The shared buffer without a lock on every call. A ring of places, as {@link MonitorBuffer}'s; the acceptor,
 * the only one that puts (as in the paper's servers), stores at its own index, and workers claim the next
 * connection with one compare-and-set of a shared take index. An empty place is null, so the ring keeps no count:
 * the acceptor's next place is free when it is null, and there is a connection to take while the take index is
 * behind the put index. The monitor is for sleeping and waking only, as {@link FastPermits}'s.
 *
 * <p><b>Exactly once.</b> A worker claims index t only while t is below {@code putIndex}, which the acceptor
 * advances after its store at t, and only by moving {@code takeAt} from t to t + 1: one worker per index, and the
 * connection is there. The acceptor stores at t + capacity only once that place is null again, after the worker
 * of t has read it.
 *
 * <p><b>No lost wake-up.</b> Whoever sleeps registers first ({@code workersWaiting}, {@code acceptorWaiting}), then
 * looks again; whoever makes progress publishes it first (the put index, the emptied place), then looks at the
 * registrations. Both are volatile, so one of the two sees the other's write. Registering after the look is
 * {@link LateWaiterBuffer}. Before it sleeps, a thread looks {@link #YIELDS} times, giving its core away in between:
 * sleeping and waking cost a system call each, and on two cores the connection is often a few microseconds away.
 * A worker woken by a put looks that many times again before it sleeps again: the put woke every sleeper, most find
 * the connection taken, and one that slept again at once stayed registered, so the acceptor's next puts took the
 * monitor to wake it (measured with four workers: ABQ's 9-11 items per microsecond against 10-21 before, 14-22 after).
 *
 * <p><b>One cache line each.</b> The acceptor writes {@code putIndex} on every put and the workers write
 * {@code takeAt} on every take. Side by side in one 64-byte line, each write takes the line from the other core, and
 * every put and take waits for it ("false sharing"). The superclasses below keep each index 128 bytes from anything
 * else, as JCTools' queues do: measured, this doubled items per microsecond with one worker (the book's fast
 * chapter). A JVM lays out a superclass's fields before a subclass's, so the padding holds; FastBufferTest reads the
 * offsets.
 * TLA+: {@code specs/FastBuffer.tla}.
 */
public class FastBuffer<T> extends FastBufferPadAfterTake implements Handoff<T> {
    /** Looks before a thread sleeps, each after a {@link Thread#yield}: of 0, 3, 5 and 50, measured on 2 cores, 50 was
     *  the only count well above ArrayBlockingQueue with four workers (the book's fast chapter). */
    static final int YIELDS = 50;

    private final AtomicReferenceArray<T> ring;
    // A field updater, not an AtomicLong: jpf-core's model of AtomicLong has no compareAndSet, so JPF could not run
    // this class (NoSuchMethodError); its model of the updater has
    private static final AtomicLongFieldUpdater<FastBufferTakeAt> TAKE_AT =
            AtomicLongFieldUpdater.newUpdater(FastBufferTakeAt.class, "takeAt");
    volatile int workersWaiting;  // written under this monitor
    volatile boolean acceptorWaiting;  // written under this monitor
    private final boolean registerFirst;

    public FastBuffer(int capacity) {
        this(capacity, true);
    }

    FastBuffer(int capacity, boolean registerFirst) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a buffer needs at least one place, got " + capacity);
        }
        ring = new AtomicReferenceArray<>(capacity);
        this.registerFirst = registerFirst;
    }

    // ANCHOR: put
    @Override
    public void put(T item) throws InterruptedException {
        long t = putIndex;
        int at = (int) (t % ring.length());
        for (int look = 0; ring.get(at) != null; look++) {  // full: the worker of index t - capacity has not read yet
            if (!yielded(look)) {
                awaitEmpty(at);
            }
        }
        ring.lazySet(at, item);  // ordered before a worker's read by the put index below
        putIndex = t + 1;  // before the look below: a worker that registers from now on sees this connection
        if (workersWaiting > 0) {
            synchronized (this) {
                notifyAll();  // as FastPermits: jpf-core's notify() with two waiters wakes neither (NotifyWitness)
            }
        }
    }
    // ANCHOR_END: put

    // ANCHOR: take
    @Override
    public T take() throws InterruptedException {
        for (int look = 0; ; look++) {
            long t = takeAt;
            if (t >= putIndex) {  // empty
                if (!yielded(look)) {
                    awaitConnection(t);
                    look = -1;  // woken: look again as a new take does, rather than sleep at the first miss
                }
            } else if (TAKE_AT.compareAndSet(this, t, t + 1)) {  // index t is this worker's alone
                int at = (int) (t % ring.length());
                T item = ring.get(at);
                ring.set(at, null);  // before the look below: an acceptor that registers from now on sees it empty
                if (acceptorWaiting) {
                    synchronized (this) {
                        notifyAll();
                    }
                }
                return item;
            }
        }
    }
    // ANCHOR_END: take

    // ANCHOR: wait
    /** The first {@link #YIELDS} looks of a put or a take give the core away; after them, the caller sleeps. */
    private static boolean yielded(int look) {
        if (look < YIELDS) {
            Thread.yield();
            return true;
        }
        return false;
    }

    /** A worker's slow path: register, then look again, and sleep only while nothing is past index t. */
    private void awaitConnection(long t) throws InterruptedException {
        synchronized (this) {
            if (registerFirst) {
                workersWaiting++;  // before the look below: a put from now on sees this worker
            }
            try {
                while (takeAt == t && putIndex <= t) {
                    if (!registerFirst) {
                        workersWaiting++;  // LateWaiterBuffer: a put between the look and this line wakes nobody
                    }
                    try {
                        wait();
                    } finally {
                        if (!registerFirst) {
                            workersWaiting--;
                        }
                    }
                }
            } finally {
                if (registerFirst) {
                    workersWaiting--;
                }
            }
        }
    }

    /** The acceptor's slow path: register, then look again, and sleep only while its place is still full. */
    private void awaitEmpty(int at) throws InterruptedException {
        synchronized (this) {
            acceptorWaiting = true;  // before the look below: a take from now on sees the acceptor
            try {
                while (ring.get(at) != null) {
                    wait();
                }
            } finally {
                acceptorWaiting = false;
            }
        }
    }
    // ANCHOR_END: wait
}

// ANCHOR: padding
// FastBuffer's two indexes, each between 128 bytes of padding (16 longs): see "One cache line each" above.
abstract class FastBufferPadBeforePut {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

abstract class FastBufferPutIndex extends FastBufferPadBeforePut {
    volatile long putIndex;  // written by the acceptor alone, after its store
}

abstract class FastBufferPadBeforeTake extends FastBufferPutIndex {
    long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
}

abstract class FastBufferTakeAt extends FastBufferPadBeforeTake {
    volatile long takeAt;  // the workers' index, moved by compare-and-set (FastBuffer.TAKE_AT)
}

abstract class FastBufferPadAfterTake extends FastBufferTakeAt {
    long r00, r01, r02, r03, r04, r05, r06, r07, r08, r09, r10, r11, r12, r13, r14, r15;
}
// ANCHOR_END: padding
