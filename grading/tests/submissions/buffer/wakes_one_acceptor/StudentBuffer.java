package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;

/**
 * A student's slip that needs two waiting acceptors (issue 68): a put wakes threads only when a worker is
 * waiting for it, and a take wakes one acceptor, only when the buffer stops being full — to save wake-ups.
 * Two acceptors wait on a full buffer, two takes come in a row: one acceptor wakes and puts, and its put
 * wakes nobody (no worker waits), so the other sleeps beside free room. With one acceptor it is right, and
 * exactly once holds with two; the second acceptor is lost to the server.
 */
public class StudentBuffer<T> implements Handoff<T> {
    private final Object[] items;  // guarded by this
    private int putAt;             // guarded by this
    private int takeAt;            // guarded by this
    private int count;             // guarded by this
    private int waitingWorkers;    // guarded by this

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
        if (waitingWorkers > 0) {
            notifyAll();  // every waiting worker may look
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized T take() throws InterruptedException {
        waitingWorkers++;
        try {
            while (count == 0) {
                wait();
            }
        } finally {
            waitingWorkers--;
        }
        T item = (T) items[takeAt];
        items[takeAt] = null;
        takeAt = (takeAt + 1) % items.length;
        count--;
        if (count == items.length - 1) {
            notify();  // BUG: one acceptor, and only when the buffer was full; two takes in a row free two slots
        }
        return item;
    }
}
