package handofflab.labs.server;

import handofflab.handoffs.Handoff;

/** A reference solution of lab "server": a ring under one monitor, waits in while loops, notifyAll. */
public class StudentHandoff<T> implements Handoff<T> {
    private final Object[] ring;
    private int head, count;

    public StudentHandoff(int slots) {
        ring = new Object[slots];
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        while (count == ring.length) {
            wait();
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
