package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;

/**
 * A student's slip that needs two waiters of one kind (issue 47): a notify only on the change from empty
 * (or from full), to save wake-ups. Two workers wait, two puts come in a row, one worker wakes; the other
 * sleeps beside a connection. Exactly once holds; a worker is lost to the server.
 */
public class StudentBuffer<T> implements Handoff<T> {
    private final Object[] items;  // guarded by this
    private int putAt;             // guarded by this
    private int takeAt;            // guarded by this
    private int count;             // guarded by this

    public StudentBuffer(int capacity) {
        items = new Object[capacity];
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        while (count == items.length) {
            wait();
        }
        items[putAt] = item;
        putAt = (putAt + 1) % items.length;
        count++;
        if (count == 1) {
            notify();  // BUG (a student's "optimisation"): wakes one taker, and only when the buffer was empty
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized T take() throws InterruptedException {
        while (count == 0) {
            wait();
        }
        T item = (T) items[takeAt];
        items[takeAt] = null;
        takeAt = (takeAt + 1) % items.length;
        count--;
        if (count == items.length - 1) {
            notify();  // the same, for the acceptor: only when the buffer was full
        }
        return item;
    }
}
