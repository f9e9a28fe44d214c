package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link ParallelHashTable} whose take reads a slot and then
 * clears it in a second synchronized call. Two workers can read the same
 * connection before either clears it. TLA+: {@code specs/SplitSwapPht.cfg}
 * (TLC: invariant NoDuplicate).
 */
public final class SplitSwapPht<T> extends ParallelHashTable<T> {

    public SplitSwapPht(int m) {
        super(m);
    }

    @Override
    T claim(SynchronizedRef<T> slot) {
        T item = slot.get();   // BUG: read ...
        if (item != null) {
            slot.set(null);    // ... then clear: another worker may have read it in between
        }
        return item;
    }
}
