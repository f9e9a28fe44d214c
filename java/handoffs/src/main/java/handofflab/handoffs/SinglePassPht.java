package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link ParallelHashTable} whose take claims its item (the count of filled
 * slots), then probes the table ONCE from its start and returns null if that pass found nothing.
 * The item it claimed was there when it claimed; but while it probes, another worker (who claimed
 * the next item) may take the one it was heading for, and the acceptor's next item may land in a
 * slot it has already passed. Exactly the one pass misses both: the worker hands on a null.
 *
 * <p>Only some starts open the window (this worker's pass must reach the taken item's slot after the
 * other worker, and have passed the new item's slot before it was filled), so a check that does not
 * choose the starts finds it by luck. Lincheck finds it every run with its starts steered
 * ({@link ProbeStarts#steer}; the catalog's {@code start_keys}).
 */
public final class SinglePassPht<T> extends ParallelHashTable<T> {

    public SinglePassPht(int m) {
        super(m);
    }

    @Override
    public T take() throws InterruptedException {
        filled.acquire();  // an item is there for this worker
        int key = starts.next(slotCount());
        for (int i = 0; i < slotCount(); i++) {
            T item = claim(probe(key, i));
            if (item != null) {
                free.release();
                return item;
            }
        }
        return null;  // BUG: one pass, then give up; the design probes again until it finds its item
    }
}
