package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link FastPht} whose take empties an atomic slot with a read and then a store of null, two
 * steps, where FastPht swaps with one {@code getAndSet}: two workers can read the same connection before either
 * clears it. SplitSwapPht's slip in the fast table's slots; its model is {@code specs/SplitSwapPht.cfg} (TLC:
 * invariant NoDuplicate), since a slot's kind, a monitor or an atomic array, is below that spec's grain.
 */
public final class SplitSwapFastPht<T> extends FastPht<T> {

    public SplitSwapFastPht(int m) {
        super(m);
    }

    @Override
    T claim(int at) {
        return slots.readThenClear(at);  // BUG: read, then clear: another worker may read it in between
    }
}
