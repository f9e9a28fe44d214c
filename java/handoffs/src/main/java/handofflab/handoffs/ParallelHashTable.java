package handofflab.handoffs;

/**
 * The parallel hash table (PHT) of Roussev &amp; Wu (JSA 2006, Sec. 4): {@code m}
 * slots, each a {@link SynchronizedRef}; ONE acceptor inserts by double hashing,
 * many workers take by probing from a pseudo-random start and atomically
 * swapping each slot with null.
 *
 * <p>Exactly once rests on three things, each broken by a named variant:
 * <ul>
 *   <li>one producer: an insert reads a slot, then sets it — two calls, safe only
 *       if nobody else inserts (two producers overwrite: {@code specs/TwoProducerPht.cfg});</li>
 *   <li>the atomic swap on take ({@link SplitSwapPht} reads, then clears);</li>
 *   <li>{@code m} prime, so {@code h2 = 1 + k mod (m-1)} is coprime to {@code m} and every
 *       probe sequence visits every slot ({@link NonPrimePht}).</li>
 * </ul>
 * The paper's appendix waits with {@code wait(500)} polling and, in search, on an
 * undefined object; here a thread waits on {@link Permits} (free slots, filled
 * slots) and is woken by the operation that changes them.
 *
 * <p>TLA+ model: {@code specs/ParallelHashTable.tla}.
 */
public class ParallelHashTable<T> implements Handoff<T> {
    private final SynchronizedRef<T>[] slots;
    private final Permits free;     // slots a put may fill
    private final Permits filled;   // items a take may find
    private final Object startLock = new Object();
    private long starts = 0x9E3779B97F4A7C15L;  // guarded by startLock

    public ParallelHashTable(int m) {
        this(m, true);
    }

    @SuppressWarnings("unchecked")
    ParallelHashTable(int m, boolean requirePrime) {
        if (m < 2 || (requirePrime && !isPrime(m))) {
            throw new IllegalArgumentException("slots must be a prime of at least 2 (double hashing needs it), got " + m);
        }
        slots = new SynchronizedRef[m];
        for (int i = 0; i < m; i++) {
            slots[i] = new SynchronizedRef<>();
        }
        free = new Permits(m);
        filled = new Permits(0);
    }

    public static boolean isPrime(int n) {
        if (n < 2) {
            return false;
        }
        for (int d = 2; (long) d * d <= n; d++) {
            if (n % d == 0) {
                return false;
            }
        }
        return true;
    }

    // ANCHOR: probe
    /** The i-th slot probed for key k (JSA 2006, Sec. 4). */
    final int slotOf(int key, int i) {
        int m = slots.length;
        int h1 = key % m, h2 = 1 + key % (m - 1);
        return (int) ((h1 + (long) i * h2) % m);
    }
    // ANCHOR_END: probe

    /** The distinct slots the probe sequence of {@code key} ever visits (all m when m is prime). */
    final java.util.Set<Integer> slotsVisited(int key) {
        java.util.Set<Integer> seen = new java.util.TreeSet<>();
        for (int i = 0; i < slots.length; i++) {
            seen.add(slotOf(key, i));  // the sequence repeats with period at most m
        }
        return seen;
    }

    // ANCHOR: put
    /** Takes effect at the {@code set} that fills the slot. Only ONE thread may put. */
    @Override
    public void put(T item) throws InterruptedException {
        if (item == null) {
            throw new NullPointerException("a handoff carries connections, never null");
        }
        free.acquire();  // a slot is free, and only this producer fills slots
        int key = item.hashCode() & 0x7fffffff;
        for (int i = 0; ; i++) {
            SynchronizedRef<T> slot = probe(key, i);
            if (slot.get() == null) {
                slot.set(item);
                filled.release();
                return;
            }
        }
    }
    // ANCHOR_END: put

    // ANCHOR: take
    /** Takes effect at the {@code swap} that empties the slot. */
    @Override
    public T take() throws InterruptedException {
        filled.acquire();  // an item is there for this worker (others may take it: probe on)
        while (true) {
            int key = (int) (mix(nextStart()) & 0x7fffffff);  // a pseudo-random start
            for (int i = 0; i < slots.length; i++) {
                T item = claim(probe(key, i));
                if (item != null) {
                    free.release();
                    return item;
                }
            }
        }
    }
    // ANCHOR_END: take

    private long nextStart() {
        synchronized (startLock) {  // a monitor, not AtomicLong: JPF's model library lacks its getAndIncrement
            return starts++;
        }
    }

    /** The slot of the i-th probe; every probe of put and take goes through here, so
     *  {@link ProbeCountingPht} can count them (Theorems 1 and 2) without a second copy of the loops. */
    SynchronizedRef<T> probe(int key, int i) {
        return slots[slotOf(key, i)];
    }

    /** Empties a slot and returns what was in it; overridden by the buggy variant. */
    T claim(SynchronizedRef<T> slot) {
        return slot.swap(null);
    }

    private static long mix(long z) {  // SplitMix64's finaliser: spreads consecutive counts
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
