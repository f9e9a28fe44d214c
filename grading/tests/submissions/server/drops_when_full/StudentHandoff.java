package handofflab.labs.server;

import handofflab.handoffs.Handoff;

/** Sample submission: a ring that drops a connection when it is full (never seen with 101 slots). */
public class StudentHandoff<T> implements Handoff<T> {
    private final Object[] ring;
    private int head, count;

    public StudentHandoff(int slots) {
        ring = new Object[slots];
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        if (count == ring.length) {
            return;  // BUG (a sample of a plausible slip): a full ring drops the connection
        }
        ring[(head + count) % ring.length] = item;
        count++;
        notifyAll();
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized T take() throws InterruptedException {
        while (count == 0) {
            wait();
        }
        T item = (T) ring[head];
        ring[head] = null;
        head = (head + 1) % ring.length;
        count--;
        notifyAll();
        return item;
    }
}
