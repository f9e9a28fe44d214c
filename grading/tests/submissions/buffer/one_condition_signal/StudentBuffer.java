package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Sample submission with a plausible bug: one condition for both reasons to wait, and
 *  signal() instead of signalAll(). A worker's signal can wake the other worker instead of the
 *  acceptor waiting for room: that wake-up is lost, and everyone waits for ever. */
public class StudentBuffer<T> implements Handoff<T> {
    private final Object[] items;
    private int putAt, takeAt, count;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    public StudentBuffer(int capacity) {
        items = new Object[capacity];
    }

    @Override
    public void put(T item) throws InterruptedException {
        lock.lock();
        try {
            while (count == items.length) {
                changed.await();
            }
            items[putAt] = item;
            putAt = (putAt + 1) % items.length;
            count++;
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public T take() throws InterruptedException {
        lock.lock();
        try {
            while (count == 0) {
                changed.await();
            }
            T item = (T) items[takeAt];
            items[takeAt] = null;
            takeAt = (takeAt + 1) % items.length;
            count--;
            changed.signal();
            return item;
        } finally {
            lock.unlock();
        }
    }
}
