package handofflab.handoffs;

/**
 * The parallel hash table made fast: {@link ParallelHashTable}'s slots, double hashing, random take
 * start and single acceptor unchanged; what a put or take pays per item cut where the paper's design
 * pays for nothing it needs.
 * <ul>
 *   <li><b>Fast permits.</b> The two counting semaphores are {@link FastPermits}: a put or take that finds
 *       a permit takes no monitor; the permits' monitor is taken only to wait, or by a release that
 *       sees a waiter ({@code specs/FastPht.tla}).</li>
 *   <li><b>A probe looks before it locks.</b> A probe reads its slot without the lock
 *       ({@link SynchronizedRef#peek}) and locks only a slot it can use: the acceptor an empty one, a
 *       worker a full one. A take probes about 1/&alpha; slots (Theorem 2), and locking each cost a
 *       monitor and moved the slot's cache line to the worker's core. An empty slot seen so is the
 *       paper's swap of null for null at the moment of the read, and a full slot seen by the one
 *       acceptor stays full until a worker's swap: the same steps, fewer locks.</li>
 *   <li><b>A probe sequence stepped, not recomputed.</b> The i-th probe is {@code (h1 + i h2) mod m};
 *       stepping from one to the next adds {@code h2} and wraps, where computing each anew costs three
 *       divisions a probe.</li>
 * </ul>
 * Measured with {@code ./lab bench handoffs} on 2 cores (the book's chapter "From the paper's design to
 * a fast one").
 *
 * <p>TLA+: the table is {@code specs/ParallelHashTable.tla} (the permits there are atomic counts, which
 * both kinds of permits implement); the permits' own fast path is {@code specs/FastPht.tla}.
 */
public class FastPht<T> extends ParallelHashTable<T> {
    public FastPht(int m) {
        super(m, true, FastPermits::new);
    }

    FastPht(int m, java.util.function.IntFunction<PermitCounter> permits) {
        super(m, true, permits);
    }

    /** Takes effect at the {@code set} that fills the slot. Only ONE thread may put. */
    @Override
    public void put(T item) throws InterruptedException {
        if (item == null) {
            throw new NullPointerException("a handoff carries connections, never null");
        }
        free.acquire();  // a slot is free, and only this acceptor fills slots
        int m = slotCount(), key = item.hashCode() & 0x7fffffff;
        int at = slotOf(key, 0), step = stepOf(key);
        for (int i = 0; ; i++) {
            assert i < m : "EventuallyTaken: an insert probed all " + m + " slots and found no free one";
            SynchronizedRef<T> slot = slotAt(at);
            if (slot.peek() == null) {  // empty, and only this acceptor fills a slot: still empty at the set
                slot.set(item);
                filled.release();
                return;
            }
            at = next(at, step, m);
        }
    }

    // ANCHOR: take
    /** Takes effect at the {@code swap} that empties the slot. */
    @Override
    public T take() throws InterruptedException {
        filled.acquire();  // an item is there for this worker (others may take it: probe on)
        int m = slotCount();
        while (true) {
            int key = starts.next(m);  // a random start slot and step
            int at = slotOf(key, 0), step = stepOf(key);
            for (int i = 0; i < m; i++) {
                SynchronizedRef<T> slot = slotAt(at);
                if (slot.peek() != null) {  // only a slot that holds an item is worth its lock
                    T item = slot.swap(null);  // another worker may have swapped it first: null, probe on
                    if (item != null) {
                        free.release();
                        return item;
                    }
                }
                at = next(at, step, m);
            }
        }
    }

    /** slotOf(key, i + 1) from slotOf(key, i): at + step, wrapped (both below m, so once is enough). */
    private static int next(int at, int step, int m) {
        int n = at + step;
        return n >= m ? n - m : n;
    }
    // ANCHOR_END: take
}
