package handofflab.handoffs;

import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The shared buffer without a lock on every call. A ring of places, as {@link MonitorBuffer}'s; the acceptor,
 * the only one that puts (as in the paper's servers), stores at its own index, and workers claim the next
 * connection with one compare-and-set of a shared take index. Nobody empties a place and the ring keeps no count:
 * there is a connection to take while the take index is behind the put index, and room for the acceptor while its
 * index is less than a lap ahead of the take index. The monitor is for sleeping and waking only, as
 * {@link FastPermits}'s.
 *
 * <p><b>Exactly once.</b> A worker claims index t only while t is below {@code putIndex}, which the acceptor
 * advances after its store at t, and only by moving {@code takeAt} from t to t + 1: one worker per index. It reads
 * the place <i>before</i> the claim: the claim is what gives the acceptor room to store index t + capacity in that
 * place, so a read after it could find the next lap's connection ({@link ClaimThenReadBuffer}). A read before it is
 * connection t as long as nobody has claimed t, and if somebody has, this worker's claim fails and it reads again.
 *
 * <p><b>No lost wake-up.</b> Whoever sleeps registers first ({@code workersWaiting}, {@code acceptorWaiting}), then
 * looks again; whoever makes progress publishes it first (the put index; the claim of the take index), then looks at
 * the registrations. Both writes are volatile (the claim is a compare-and-set), so one of the two sees the other's
 * write: these are the two Dekker pairs below. Registering after the look is {@link LateWaiterBuffer}. A worker pays
 * nothing more for the acceptor's pair than the claim it makes anyway: emptying the place, a volatile write of its
 * own, is gone. Before it sleeps, a thread looks {@link #YIELDS} times, giving its core away in between: sleeping
 * and waking cost a system call each, and on two cores the connection is often a few microseconds away. A worker
 * woken by a put looks that many times again before it sleeps again: the put woke every sleeper, most find the
 * connection taken, and one that slept again at once stayed registered, so the acceptor's next puts took the monitor
 * to wake it (measured with four workers: ABQ's 9-11 items per microsecond against 10-21 before, 14-22 after).
 *
 * <p><b>Each reads the other's index only when it must.</b> The acceptor remembers the room it last saw
 * ({@code roomUntil}) and reads the take index again only when it has used that room up; the workers share a copy of
 * the put index on their own line ({@code putIndexSeen}) and read the acceptor's only when they catch up with the
 * copy. Either is an older value of the other's index, which can only send a thread to read the index itself.
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
    private long roomUntil;  // the acceptor's own: indexes below it had room when it last read takeAt
    private final boolean registerFirst;
    private final boolean readFirst;

    public FastBuffer(int capacity) {
        this(capacity, true, true);
    }

    FastBuffer(int capacity, boolean registerFirst) {
        this(capacity, registerFirst, true);
    }

    FastBuffer(int capacity, boolean registerFirst, boolean readFirst) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a buffer needs at least one place, got " + capacity);
        }
        ring = new AtomicReferenceArray<>(capacity);
        this.registerFirst = registerFirst;
        this.readFirst = readFirst;
    }

    // ANCHOR: put
    @Override
    public void put(T item) throws InterruptedException {
        long t = putIndex;
        if (t >= roomUntil) {  // past the room last seen: look at the take index again
            for (int look = 0; t >= (roomUntil = roomEnd()); look++) {  // full
                if (!yielded(look)) {
                    awaitRoom(t);
                }
            }
        }
        ring.lazySet(placeOf(t), item);  // ordered before a worker's read by the put index below
        if (publishThenLook(t + 1)) {  // a worker registered: wake it
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
            if (t >= putIndexSeen && t >= seePutIndex()) {  // empty
                if (!yielded(look)) {
                    awaitConnection(t);
                    look = -1;  // woken: look again as a new take does, rather than sleep at the first miss
                }
                continue;
            }
            // Read before the claim: the acceptor stores at index t + capacity only once takeAt is past t, so the
            // place still holds connection t unless another worker claimed t first, and then the claim below fails.
            T item = readFirst ? ring.get(placeOf(t)) : null;
            if (claim(t)) {  // index t is this worker's alone, and its place is free for the acceptor
                if (!readFirst) {
                    item = ring.get(placeOf(t));  // BUG (ClaimThenReadBuffer): the next lap's, maybe
                }
                if (acceptorWaiting) {  // the acceptor registered: wake it
                    synchronized (this) {
                        notifyAll();
                    }
                }
                return item;
            }
        }
    }
    // ANCHOR_END: take

    /** Reads the put index, the line the acceptor writes on every put, and leaves it where every worker looks
     *  first: a worker reads it only when its take index has caught up with the last one seen. Written volatile,
     *  so a worker that reads it sees every connection stored below it, as if it had read the put index. */
    private long seePutIndex() {
        long p = putIndex;
        putIndexSeen = p;  // racing workers may leave an older one: still a put index, only smaller
        return p;
    }

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
            if (!registerFirst) {
                awaitLate(t);
                return;
            }
            try {
                for (boolean empty = registerThenLook(t); empty; empty = nothingPast(t)) {
                    wait();
                }
            } finally {
                workersWaiting--;
            }
        }
    }

    /** The acceptor's slow path: register, then look again, and sleep only while index t still has no room. */
    private void awaitRoom(long t) throws InterruptedException {
        synchronized (this) {
            try {
                for (boolean full = registerThenLookRoom(t); full; full = t >= roomEnd()) {
                    wait();
                }
            } finally {
                acceptorWaiting = false;
            }
        }
    }
    // ANCHOR_END: wait

    // ANCHOR: pairs
    // The two Dekker pairs, each half one method: put, take and the slow paths above call them, and so do the
    // jcstress tests (java/jcstress), which run the halves side by side on the real JIT and hardware. The one
    // exception is the worker's half of the acceptor's pair: its write is the claim, which take must know succeeded
    // before it looks at acceptorWaiting, so take and the jcstress test call claim, then read the field. In each pair a
    // thread writes, then reads what the other writes: only if both writes are volatile (a store no later load may
    // pass) does one of the two threads always see the other's write.

    /** The acceptor's half: publish index {@code next}, then look: true if a worker registered to sleep. */
    final boolean publishThenLook(long next) {
        publish(next);
        return workersWaiting > 0;
    }

    /** A worker's half, under the monitor: register, then look: true if nothing is past index t (it may sleep). */
    final boolean registerThenLook(long t) {
        assert Thread.holdsLock(this) : "a worker registers only under the monitor it waits on";
        workersWaiting++;
        return nothingPast(t);
    }

    /** A worker's half of the other pair: claim index t (a compare-and-set, a volatile write whose later reads
     *  cannot pass it), the place it frees for the acceptor; its look at {@code acceptorWaiting} follows in take. */
    final boolean claim(long t) {
        return TAKE_AT.compareAndSet(this, t, t + 1);
    }

    /** The acceptor's half, under the monitor: register, then look: true if index t still has no room. */
    final boolean registerThenLookRoom(long t) {
        assert Thread.holdsLock(this) : "the acceptor registers only under the monitor it waits on";
        registerAcceptor();
        return t >= roomEnd();
    }

    /** The acceptor's registration's volatile write: its read of the take index after it cannot pass it. */
    void registerAcceptor() {
        acceptorWaiting = true;
    }

    /** The put index's volatile write: a later read by the acceptor cannot pass it. */
    void publish(long next) {
        putIndex = next;
    }
    // ANCHOR_END: pairs

    /** The place of index t in the ring. */
    private int placeOf(long t) {
        return (int) (t % ring.length());
    }

    /** The first index with no room: a lap past the take index, whose place the worker of takeAt has not claimed. */
    private long roomEnd() {
        return takeAt + ring.length();
    }

    private boolean nothingPast(long t) {
        return takeAt == t && putIndex <= t;
    }

    /** LateWaiterBuffer's slow path: look, then register; a put between the two wakes nobody. */
    private void awaitLate(long t) throws InterruptedException {
        while (nothingPast(t)) {
            workersWaiting++;  // BUG (LateWaiterBuffer): a put between the look and this line wakes nobody
            try {
                wait();
            } finally {
                workersWaiting--;
            }
        }
    }
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
    volatile long putIndexSeen;  // the workers' copy of putIndex, refreshed only when they catch up with it
}

abstract class FastBufferPadAfterTake extends FastBufferTakeAt {
    long r00, r01, r02, r03, r04, r05, r06, r07, r08, r09, r10, r11, r12, r13, r14, r15;
}
// ANCHOR_END: padding
