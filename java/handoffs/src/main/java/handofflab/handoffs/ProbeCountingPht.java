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
 *   <li>conflicts (Theorem 3): a take is <em>in conflict</em> when, while it claims a
 *       slot, another worker claims the same slot.</li>
 * </ul>
 * The put and take code is the parent's, unchanged: this class only overrides the
 * probe and claim hooks. It is not in the catalog: the checkers check the plain class.
 */
public final class ProbeCountingPht<T> extends ParallelHashTable<T> {
    private static final class PerThread {
        int probes, lastSlot;
        boolean conflicted;
        long firstProbeNanos;
    }

    private final ThreadLocal<PerThread> mine = ThreadLocal.withInitial(PerThread::new);
    private final AtomicIntegerArray inSlot;    // workers claiming slot i right now
    private final AtomicLongArray entries;      // claims of slot i so far: a change while I am in it is a conflict
    private final LongAdder takes = new LongAdder(), conflictedTakes = new LongAdder();
    private final LongAdder probingNanos = new LongAdder();

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
        takes.increment();
        probingNanos.add(System.nanoTime() - me.firstProbeNanos);  // from the first probe, not the wait for an item
        if (me.conflicted) {
            conflictedTakes.increment();
        }
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
        if (me.probes++ == 0) {
            me.firstProbeNanos = System.nanoTime();
        }
        me.lastSlot = slotOf(key, i);
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

    public long takes() {
        return takes.sum();
    }

    public long conflictedTakes() {
        return conflictedTakes.sum();
    }

    /** Mean time from a take's first probe to its successful claim: the paper's t_a. */
    public double meanProbingNanos() {
        long n = takes.sum();
        return n == 0 ? 0 : (double) probingNanos.sum() / n;
    }
}
