package handofflab.handoffs;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The parallel hash table's slots for {@link FastPht}: one flat array of atomic references instead of
 * {@link SynchronizedRef}s, each a separate object with its own monitor. The paper's two slot steps stay
 * one step each, with no lock: a worker empties a slot with one atomic swap ({@code getAndSet}), and the
 * one acceptor fills a slot it saw empty with a plain ordered store, since no other thread fills a slot
 * and a worker's swap of an empty one writes the null that was there. A probe reads one array element,
 * not a reference to an object and then its field.
 *
 * <p>In a recorded run (trace validation) the slots log their steps as {@link SynchronizedRef} does, and
 * so that the log orders them as they took effect, each logged step is taken under this object's monitor:
 * a run that records pays for a lock a fast run never takes. The peeks are not logged (an empty slot seen
 * is the design's swap of null for null, a full one seen by the acceptor its get: steps that change nothing).
 */
final class AtomicSlots<T> {
    private final AtomicReferenceArray<T> cells;
    // Set before the threads that use the slots start (Thread.start orders it), never after.
    private StepLog steps;

    AtomicSlots(int m) {
        cells = new AtomicReferenceArray<>(m);
    }

    int length() {
        return cells.length();
    }

    /** Logs every fill and swap from now on (the slot's number is its index). */
    void recordTo(StepLog log) {
        steps = log;
    }

    /** What slot {@code i} holds now: a look, not a step. */
    T peek(int i) {
        return cells.get(i);
    }

    // ANCHOR: slots
    /** Fills slot {@code i}, which the caller, the one acceptor, saw empty: it stays empty until this store. */
    void fill(int i, T item) {
        if (steps == null) {
            cells.lazySet(i, item);  // the permit's release after it publishes the item (a full fence)
            return;
        }
        synchronized (this) {
            cells.lazySet(i, item);
            steps.step("set", i, item);
        }
    }

    /** Empties slot {@code i} and returns what it held (null if another worker emptied it first). */
    T swap(int i) {
        if (steps == null) {
            return cells.getAndSet(i, null);
        }
        synchronized (this) {
            T old = cells.getAndSet(i, null);
            steps.step("swap", i, old);
            return old;
        }
    }
    // ANCHOR_END: slots

    /**
     * BUGGY on purpose, for {@link SplitSwapFastPht} only: reads slot {@code i}, then, if it held an item,
     * stores null in a second step.
     * Two workers that read the slot between them both return its item. Recorded, each step is logged as its own.
     */
    T readThenClear(int i) {
        T old;
        synchronized (this) {  // a lock on each step, as SplitSwapPht's two synchronized calls: the bug is between them
            old = cells.get(i);
            if (steps != null) {
                steps.step("get", i, old);
            }
        }
        if (old != null) {
            synchronized (this) {
                cells.set(i, null);
                if (steps != null) {
                    steps.step("set", i, null);
                }
            }
        }
        return old;
    }
}
