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
public class ParallelHashTable<T> implements Handoff<T>, Stepped {
    private final SynchronizedRef<T>[] slots;
    final PermitCounter free;     // slots a put may fill (package-private: the jcstress tests reach FastPht's)
    final PermitCounter filled;   // items a take may find
    // The take's random start: ProbeStarts, which the checkers can steer (Lincheck explores interleavings,
    // not random values) and which is otherwise java.util.Random from a fixed seed, so that JPF
    // (cg.enumerate_random) turns each draw into a choice of every start and step, and a worker that
    // probes again draws again rather than counting up (a counter made TwoProducerPht's state space infinite).
    final ProbeStarts starts = new ProbeStarts();  // package-private: SinglePassPht draws from it too

    public ParallelHashTable(int m) {
        this(m, true);
    }

    ParallelHashTable(int m, boolean requirePrime) {
        this(m, requirePrime, Permits::new);
    }

    /** With other permits than the book's monitor ({@link FastPht}: a compare-and-set fast path). */
    ParallelHashTable(int m, boolean requirePrime, java.util.function.IntFunction<PermitCounter> permits) {
        this(checked(m, requirePrime), requirePrime, permits.apply(m), permits.apply(0));
    }

    /** With both counts given ({@link OneMonitorPht}'s share one monitor): {@code free} starts at m, {@code filled} at 0. */
    @SuppressWarnings("unchecked")
    ParallelHashTable(int m, boolean requirePrime, PermitCounter free, PermitCounter filled) {
        slots = new SynchronizedRef[checked(m, requirePrime)];
        for (int i = 0; i < m; i++) {
            slots[i] = new SynchronizedRef<>();
        }
        this.free = free;
        this.filled = filled;
    }

    /** m itself, if the table may have m slots (FastPht's too). */
    static int checked(int m, boolean requirePrime) {
        if (m < 2 || (requirePrime && !isPrime(m))) {
            throw new IllegalArgumentException("slots must be a prime of at least 2 (double hashing needs it), got " + m);
        }
        return m;
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
        return slotOf(key, i, slots.length);
    }

    /** The same in a table of m slots (FastPht's, whose slots are not these). */
    static int slotOf(int key, int i, int m) {
        int h1 = startOf(key, m), h2 = stepOf(key, m);
        return (int) ((h1 + (long) i * h2) % m);
    }

    /** h1: the first slot probed for key k, where its sequence starts (slotOf(k, 0), one division). */
    static int startOf(int key, int m) {
        return key % m;
    }

    /** h2: the step from one probe of key k to the next (never 0, and coprime to m when m is prime). */
    static int stepOf(int key, int m) {
        return 1 + key % (m - 1);
    }
    // ANCHOR_END: probe

    /** A recorded run logs every slot access, each inside its slot's lock (SynchronizedRef). */
    @Override
    public void recordSteps(StepLog log) {
        for (int i = 0; i < slots.length; i++) {
            slots[i].recordTo(log, i);
        }
    }

    /** The table's size m (for the buggy twins, which probe as the table does). */
    final int slotCount() {
        return slots.length;
    }

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
            // a free slot exists and only this producer fills: m probes find it when they visit
            // every slot (m prime). Checked by JPF, which runs the kit's asserts; the JVM skips it.
            assert i < slots.length : "EventuallyTaken: an insert probed all " + slots.length
                    + " slots and found no free one: its probe sequence skips slots (m not prime?)";
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
            int key = starts.next(slots.length);  // a random start slot and step
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

    /** The slot of the i-th probe; every probe of put and take goes through here, so
     *  {@link ProbeCountingPht} can count them (Theorems 1 and 2) without a second copy of the loops. */
    SynchronizedRef<T> probe(int key, int i) {
        return slots[slotOf(key, i)];
    }

    /** Empties a slot and returns what was in it; overridden by the buggy variant. */
    T claim(SynchronizedRef<T> slot) {
        return slot.swap(null);
    }

}
