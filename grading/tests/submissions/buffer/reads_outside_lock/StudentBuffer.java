package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;

/** Sample submission, buggy: take reserves an item under the monitor (count--), then reads the slot and
 *  moves takeAt outside it, in a second synchronized block.  A worker that reserved and has not yet read
 *  lets a put in and a second worker reserve: both read the same slot (one connection taken twice) and
 *  both move takeAt (the next one is never taken). It never clears a slot, so no worker gets null.  Needs two workers and a put between their checks. */
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
        notifyAll();
    }

    @Override
    @SuppressWarnings("unchecked")
    public T take() throws InterruptedException {
        synchronized (this) {
            while (count == 0) {
                wait();
            }
            count--;                   // this item is mine (so I think)
        }
        T item = (T) items[takeAt];    // read without the monitor: takeAt has not moved yet
        synchronized (this) {
            takeAt = (takeAt + 1) % items.length;
            notifyAll();
        }
        return item;
    }
}
