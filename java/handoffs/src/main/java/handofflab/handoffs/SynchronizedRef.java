package handofflab.handoffs;

/**
 * One slot of the parallel hash table (Roussev &amp; Wu, JSA 2006, Sec. 4): a
 * reference whose every access takes this object's own lock, so threads on
 * different slots never wait for each other.
 *
 * <p>In a recorded run (trace validation, {@link RecordedHandoff}) each access is also logged as a
 * step, inside the lock, so the log orders a slot's steps as they happened: what a get read, what
 * a set wrote, what a swap took out. The slot logs them, not the code that calls it, so a
 * handoff cannot log a step it did not take.
 */
public final class SynchronizedRef<T> {
    private T value;  // read and written under this lock
    // Set before the threads that use the slot start (Thread.start orders it), never after.
    private StepLog steps;
    private int index;
    // Null but in the stress check's built state (SwapGate), which holds a take between its claim and its swap.
    private final SwapGate gate = SwapGate.forNewSlot();

    /** Logs every access to this slot from now on as slot {@code index}'s. */
    void recordTo(StepLog log, int index) {
        this.steps = log;
        this.index = index;
    }

    public synchronized T get() {
        if (steps != null) {
            steps.step("get", index, value);
        }
        return value;
    }

    public synchronized void set(T newValue) {
        value = newValue;
        if (steps != null) {
            steps.step("set", index, newValue);
        }
    }

    /** Sets the value and returns the old one, atomically: the PHT's take. */
    public T swap(T newValue) {
        if (gate != null) {
            gate.pass();  // outside the lock: a held take keeps no slot from the others
        }
        synchronized (this) {
            T old = value;
            value = newValue;
            if (steps != null) {
                steps.step(newValue == null ? "swap" : "swap-in", index, old);
            }
            return old;
        }
    }
}
