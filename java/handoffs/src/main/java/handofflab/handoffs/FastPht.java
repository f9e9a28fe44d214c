package handofflab.handoffs;

/**
 * The parallel hash table made fast: {@link ParallelHashTable}'s double hashing, random take start and
 * single acceptor unchanged; what a put or take pays per item cut where the paper's design pays for
 * nothing it needs.
 * <ul>
 *   <li><b>Fast permits.</b> The two counting semaphores are {@link FastPermits}: a put or take that finds
 *       a permit takes no monitor; the permits' monitor is taken only to wait, or by a release that
 *       sees a waiter ({@code specs/FastPht.tla}).</li>
 *   <li><b>Atomic slots.</b> The slots are one flat array of atomic references ({@link AtomicSlots}): a
 *       worker empties a slot with one atomic swap where the paper locks the slot's monitor, and the one
 *       acceptor fills an empty slot with an ordered store. A probe reads an array element where it read
 *       a reference to a slot object and then that object's field.</li>
 *   <li><b>A probe looks before it swaps.</b> A take probes about 1/&alpha; slots (Theorem 2) and swaps
 *       only a slot it saw full; an empty slot seen so is the paper's swap of null for null at the moment
 *       of the read, and a full slot seen by the one acceptor stays full until a worker's swap: the same
 *       steps, fewer atomic instructions.</li>
 *   <li><b>A probe sequence stepped, not recomputed.</b> The i-th probe is {@code (h1 + i h2) mod m};
 *       stepping from one to the next adds {@code h2} and wraps, where computing each anew costs three
 *       divisions a probe.</li>
 * </ul>
 * Measured with {@code ./lab bench handoffs} on 2 cores (the book's chapter "From the paper's design to
 * a fast one").
 *
 * <p>TLA+: the table is {@code specs/ParallelHashTable.tla} (a slot's fill and swap are one step each there,
 * as here; the permits there are atomic counts, which both kinds of permits implement); the permits' own
 * fast path is {@code specs/FastPht.tla}.
 */
public class FastPht<T> implements Handoff<T>, Stepped {
    final AtomicSlots<T> slots;   // package-private: SplitSwapFastPht empties them its own (wrong) way
    final PermitCounter free;     // slots a put may fill (package-private: DekkerHalves reaches them for jcstress)
    final PermitCounter filled;   // items a take may find
    final ProbeStarts starts = new ProbeStarts();  // the take's random start, steerable by the checkers

    public FastPht(int m) {
        this(m, FastPermits::new);
    }

    FastPht(int m, java.util.function.IntFunction<PermitCounter> permits) {
        slots = new AtomicSlots<>(ParallelHashTable.checked(m, true));
        free = permits.apply(m);
        filled = permits.apply(0);
    }

    /** A recorded run logs every fill and swap (AtomicSlots), as ParallelHashTable's slots do. */
    @Override
    public void recordSteps(StepLog log) {
        slots.recordTo(log);
    }

    /** Takes effect at the store that fills the slot. Only ONE thread may put. */
    @Override
    public void put(T item) throws InterruptedException {
        if (item == null) {
            throw new NullPointerException("a handoff carries connections, never null");
        }
        free.acquire();  // a slot is free, and only this acceptor fills slots
        int m = slots.length(), key = item.hashCode() & 0x7fffffff;
        int at = ParallelHashTable.startOf(key, m), step = ParallelHashTable.stepOf(key, m);
        for (int i = 0; ; i++) {
            assert i < m : "EventuallyTaken: an insert probed all " + m + " slots and found no free one";
            if (slots.peek(at) == null) {  // empty, and only this acceptor fills a slot: still empty at the fill
                slots.fill(at, item);
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
        int m = slots.length();
        while (true) {
            int key = starts.next(m);  // a random start slot and step
            int at = ParallelHashTable.startOf(key, m), step = ParallelHashTable.stepOf(key, m);
            for (int i = 0; i < m; i++) {
                if (slots.peek(at) != null) {  // only a slot that holds an item is worth an atomic swap
                    T item = claim(at);  // another worker may have swapped it first: null, probe on
                    if (item != null) {
                        free.release();
                        return item;
                    }
                }
                at = next(at, step, m);
            }
        }
    }

    /** Empties slot {@code at} with one atomic swap and returns what it held; overridden by the buggy twin. */
    T claim(int at) {
        return slots.swap(at);
    }

    /** slotOf(key, i + 1) from slotOf(key, i): at + step, wrapped (both below m, so once is enough). */
    private static int next(int at, int step, int m) {
        int n = at + step;
        return n >= m ? n - m : n;
    }
    // ANCHOR_END: take
}
