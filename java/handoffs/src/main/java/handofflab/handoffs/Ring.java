package handofflab.handoffs;

/**
 * The slots of a bounded buffer: a ring of {@code capacity} references. This
 * class only moves items; it does no locking and no waiting. Its subclasses
 * decide how threads synchronise around it, and that is where the bugs live.
 *
 * <p>Invariant (while the monitor of {@code this} is free):
 * {@code 0 <= count <= items.length}, the {@code count} slots from
 * {@code takeAt} onwards hold the items in put order, every other slot is null.
 * Every field is guarded by the monitor of {@code this}: call these methods only
 * inside {@code synchronized} methods of the subclass (each asserts it: JPF runs the kit's asserts, and so do the
 * JVMs of the kit's own tests).
 */
public abstract class Ring<T> implements Handoff<T>, Stepped {
    private final Object[] items;  // guarded by this
    private int putAt;             // guarded by this: next slot to fill
    private int takeAt;            // guarded by this: next slot to empty
    private int count;             // guarded by this: filled slots
    private StepLog steps = StepLog.NONE;  // a recorded run's log (trace validation)

    protected Ring(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        items = new Object[capacity];
    }

    final boolean isFull() {
        assert Thread.holdsLock(this) : "Ring.isFull outside the monitor";
        return count == items.length;
    }

    final boolean isEmpty() {
        assert Thread.holdsLock(this) : "Ring.isEmpty outside the monitor";
        return count == 0;
    }

    /** Fills the next slot. Assumes a free slot; a caller that did not check overwrites one. */
    final void insert(T item) {
        if (item == null) {
            throw new NullPointerException("a handoff carries connections, never null");
        }
        assert Thread.holdsLock(this) : "Ring.insert outside the monitor";
        steps.step("insert", putAt, item);
        items[putAt] = item;
        putAt = (putAt + 1) % items.length;
        count++;
    }

    /** Empties the next slot, nulling it. Assumes a full slot; a caller that did not check gets null. */
    @SuppressWarnings("unchecked")
    final T extract() {
        assert Thread.holdsLock(this) : "Ring.extract outside the monitor";
        T item = (T) items[takeAt];
        steps.step("remove", takeAt, item);
        items[takeAt] = null;
        takeAt = (takeAt + 1) % items.length;
        count--;
        return item;
    }

    /** Takes the item put last, not the oldest: only {@link LifoBuffer}'s bug takes from this end. */
    @SuppressWarnings("unchecked")
    final T extractNewest() {
        assert Thread.holdsLock(this) : "Ring.extractNewest outside the monitor";
        putAt = (putAt - 1 + items.length) % items.length;
        T item = (T) items[putAt];
        steps.step("remove", putAt, item);
        items[putAt] = null;
        count--;
        return item;
    }

    /**
     * A step of the monitor protocol, logged in a recorded run (trace validation) with the items held
     * now: "wait" just before {@code wait()}, "woke" just after it returns (the monitor held again),
     * "notifyAll" or "notify" just before the call. The trace spec checks its own count against it.
     */
    final void step(String kind) {
        assert Thread.holdsLock(this) : "Ring.step outside the monitor";
        steps.step(kind, count, null);
    }

    /**
     * A recorded run logs every insert and remove (with its slot of the ring), wait, wake-up and notify,
     * each inside the monitor, so the log orders them as they happened.
     */
    @Override
    public void recordSteps(StepLog log) {
        steps = log;
    }

    /** Items buffered now (for measurements; takes the monitor). */
    public synchronized int size() {
        return count;
    }

    public final int capacity() {
        return items.length;
    }
}
