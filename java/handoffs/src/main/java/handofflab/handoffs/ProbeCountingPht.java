package handofflab.handoffs;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The real {@link ParallelHashTable}, counting what the theorems of Roussev &amp; Wu
 * (JSA 2006, Sec. 5) are about, for the notebook {@code notebooks/pht_theorems.py}:
 * <ul>
 *   <li>probes per put and per take (Theorems 1 and 2), read with {@link #lastProbes()}
 *       by the thread that made the call;</li>
 *   <li>conflicts (Theorem 3), two ways. {@link #lastConflicted()} says whether a take's claim
 *       of a slot met another worker's claim of it (nanoseconds apart); the theorem counts
 *       retrievals that overlap in <em>time</em> and land on the same slot, so each take also
 *       leaves its retrieval (first probe to claim, and the slot of its first probe) for the
 *       calling thread to read: {@link #lastRetrievalStart()}, {@link #lastRetrievalEnd()},
 *       {@link #lastFirstSlot()}. The notebook counts the overlaps from those.</li>
 * </ul>
 * The put and take code is the parent's, unchanged: this class only overrides the
 * probe and claim hooks. It is not in the catalog: the checkers check the plain class.
 */
public final class ProbeCountingPht<T> extends ParallelHashTable<T> {
    private static final class PerThread {
        int probes, lastSlot, firstSlot;
        boolean conflicted;
        long firstProbeNanos, endNanos;
    }

    private final ThreadLocal<PerThread> mine = ThreadLocal.withInitial(PerThread::new);
    private final AtomicIntegerArray inSlot;    // workers claiming slot i right now
    private final AtomicLongArray entries;      // claims of slot i so far: a change while I am in it is a conflict
    private final LongAdder takes = new LongAdder();

    public ProbeCountingPht(int m) {
        super(m);
        inSlot = new AtomicIntegerArray(m);
        entries = new AtomicLongArray(m);
    }

    @Override
    public void put(T item) throws InterruptedException {
        begin();
        super.put(item);
    }

    @Override
    public T take() throws InterruptedException {
        PerThread me = begin();
        T item = super.take();
        me.endNanos = System.nanoTime();  // the retrieval ran from the first probe: the wait for an item is not in it
        takes.increment();
        return item;
    }

    private PerThread begin() {
        PerThread me = mine.get();
        me.probes = 0;
        me.conflicted = false;
        return me;
    }

    @Override
    SynchronizedRef<T> probe(int key, int i) {
        PerThread me = mine.get();
        me.lastSlot = slotOf(key, i);
        if (me.probes++ == 0) {
            me.firstProbeNanos = System.nanoTime();
            me.firstSlot = me.lastSlot;
        }
        return super.probe(key, i);
    }

    @Override
    T claim(SynchronizedRef<T> slot) {
        PerThread me = mine.get();
        int i = me.lastSlot;
        long ticket = entries.incrementAndGet(i);
        boolean shared = inSlot.incrementAndGet(i) > 1;  // somebody was already in it
        try {
            return super.claim(slot);
        } finally {
            shared |= entries.get(i) != ticket;             // somebody came in while I was in it
            inSlot.decrementAndGet(i);
            me.conflicted |= shared;
        }
    }

    /** Probes made by the calling thread's last put or take. */
    public int lastProbes() {
        return mine.get().probes;
    }

    /** When the calling thread's last take made its first probe (System.nanoTime). */
    public long lastRetrievalStart() {
        return mine.get().firstProbeNanos;
    }

    /** When the calling thread's last take had claimed its connection (System.nanoTime). */
    public long lastRetrievalEnd() {
        return mine.get().endNanos;
    }

    /** The slot the calling thread's last take probed first: the uniformly chosen slot of Theorem 3. */
    public int lastFirstSlot() {
        return mine.get().firstSlot;
    }

    /** Whether the calling thread's last take met another worker's claim of its slot. */
    public boolean lastConflicted() {
        return mine.get().conflicted;
    }

    public long takes() {
        return takes.sum();
    }
}
