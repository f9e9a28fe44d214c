package handofflab.handoffs;

import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where a parallel hash table's take starts probing: a pseudo-random key, whose double-hashing
 * sequence ({@code h1 = k mod m}, {@code h2 = 1 + k mod (m-1)}) gives the start slot and the step.
 * Every key from 0 to {@code m(m-1) - 1} is one (start, step) pair, so a draw covers them all.
 *
 * <p>Why a class of the kit rather than each table's own random numbers: a take that goes wrong only
 * for some starts (one pass from a start that another worker overtakes, say) is caught by a model
 * checker only if the checker chooses the starts. Lincheck explores interleavings, not the values a
 * random source returns, so the checkers {@linkplain #steer steer} this source: each table made while
 * it is steered draws the given keys, in turn, and Lincheck then tries every interleaving of those
 * draws. Unsteered, it is {@code java.util.Random} from a fixed seed, so a run repeats, and JPF
 * (cg.enumerate_random) turns each draw into a choice of every key.
 */
public final class ProbeStarts {
    /** The seed of every unsteered source, so that a run repeats (the checks steer what they need). */
    public static final long SEED = 17;

    private static volatile int[] steered;  // the keys each new source draws in turn; null: random

    private final Random random;    // null when steered
    private final int[] keys;
    private final AtomicInteger draws;

    /** A source for one table: steered if {@link #steer} is in force, else random from {@link #SEED}. */
    public ProbeStarts() {
        int[] given = steered;
        keys = given;
        random = given == null ? new Random(SEED) : null;
        draws = given == null ? null : new AtomicInteger();  // unsteered, no counter: JPF's state stays finite
    }

    /** The next start key for a table of {@code m} slots: 0 to m(m-1) - 1 (every start and step once). */
    public int next(int m) {
        int bound = m <= 46_341 ? m * (m - 1) : Integer.MAX_VALUE;  // m(m-1) fits an int up to here
        if (keys == null) {
            return random.nextInt(bound);
        }
        return Math.floorMod(keys[Math.floorMod(draws.getAndIncrement(), keys.length)], bound);
    }

    /**
     * For the checkers and the lab's tests, never for a table: every source made after this call draws
     * {@code keys} in turn (over again from the first), until {@link #unsteer}. The lab's allowed API
     * lets a submission make a source and draw from it, not steer it.
     */
    public static void steer(int... keys) {
        if (keys.length == 0) {
            throw new IllegalArgumentException("steer needs at least one key");
        }
        steered = Arrays.copyOf(keys, keys.length);
    }

    /** Sources made from now on are random again. */
    public static void unsteer() {
        steered = null;
    }
}
