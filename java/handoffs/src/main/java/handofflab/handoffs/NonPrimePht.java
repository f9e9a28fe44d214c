package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link ParallelHashTable} that accepts a table size that is
 * not prime. With m = 4, a key whose h2 = 1 + k mod 3 is 2 probes only two of
 * the four slots, for ever: an insert can spin past the one free slot. TLA+:
 * {@code specs/NonPrimePht.cfg} (TLC: property EventuallyTaken).
 */
public final class NonPrimePht<T> extends ParallelHashTable<T> {

    public NonPrimePht(int m) {
        super(m, false);  // BUG: no primality check
    }
}
