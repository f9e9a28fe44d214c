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
 * inside {@code synchronized} methods of the subclass.
 */
public abstract class Ring<T> implements Handoff<T> {
    private final Object[] items;  // guarded by this
    private int putAt;             // guarded by this: next slot to fill
    private int takeAt;            // guarded by this: next slot to empty
    private int count;             // guarded by this: filled slots

    protected Ring(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        items = new Object[capacity];
    }

    final boolean isFull() {
        return count == items.length;
    }

    final boolean isEmpty() {
        return count == 0;
    }

    /** Fills the next slot. Assumes a free slot; a caller that did not check overwrites one. */
    final void insert(T item) {
        if (item == null) {
            throw new NullPointerException("a handoff carries connections, never null");
        }
        items[putAt] = item;
        putAt = (putAt + 1) % items.length;
        count++;
    }

    /** Empties the next slot, nulling it. Assumes a full slot; a caller that did not check gets null. */
    @SuppressWarnings("unchecked")
    final T extract() {
        T item = (T) items[takeAt];
        items[takeAt] = null;
        takeAt = (takeAt + 1) % items.length;
        count--;
        return item;
    }

    /** Items buffered now (for measurements; takes the monitor). */
    /** Takes the item put last, not the oldest: only {@link LifoBuffer}'s bug takes from this end. */
    @SuppressWarnings("unchecked")
    final T extractNewest() {
        putAt = (putAt - 1 + items.length) % items.length;
        T item = (T) items[putAt];
        items[putAt] = null;
        count--;
        return item;
    }

    public synchronized int size() {
        return count;
    }

    public final int capacity() {
        return items.length;
    }
}
