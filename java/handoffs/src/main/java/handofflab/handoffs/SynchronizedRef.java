package handofflab.handoffs;

/**
 * One slot of the parallel hash table (Roussev &amp; Wu, JSA 2006, Sec. 4): a
 * reference whose every access takes this object's own lock, so threads on
 * different slots never wait for each other.
 */
public final class SynchronizedRef<T> {
    private T value;  // guarded by this

    public synchronized T get() {
        return value;
    }

    public synchronized void set(T newValue) {
        value = newValue;
    }

    /** Sets the value and returns the old one, atomically: the PHT's take. */
    public synchronized T swap(T newValue) {
        T old = value;
        value = newValue;
        return old;
    }
}
