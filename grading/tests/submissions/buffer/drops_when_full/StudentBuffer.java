package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;

/** Sample submission with a plausible bug: put does not wait when the buffer is full, it
 *  gives up ("the client will retry"). The connection is lost: nobody ever serves it. */
public class StudentBuffer<T> implements Handoff<T> {
    private final Object[] items;
    private int putAt, takeAt, count;

    public StudentBuffer(int capacity) {
        items = new Object[capacity];
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        if (count == items.length) {
            return;
        }
        items[putAt] = item;
        putAt = (putAt + 1) % items.length;
        count++;
        notifyAll();
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
        notifyAll();
        return item;
    }
}
