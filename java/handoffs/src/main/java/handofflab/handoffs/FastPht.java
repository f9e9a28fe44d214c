package handofflab.handoffs;

/**
 * The parallel hash table with fast permits: {@link ParallelHashTable}'s slots, probes and random
 * start unchanged, its two counting semaphores {@link FastPermits} instead of {@link Permits}. A put
 * or take that finds a free slot or an item takes no monitor but its slot's; the permits' monitor is
 * taken only to wait, or by a release that sees a waiter. Measured with {@code ./lab bench handoffs --full} on
 * 2 cores: 0.22 -> 0.34 of ArrayBlockingQueue's items per microsecond with one worker, 0.25 -> 0.35 with four
 * (the book's chapter "From the paper's design to a fast one").
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
}
