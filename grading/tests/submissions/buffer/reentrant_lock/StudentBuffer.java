package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Sample submission, correct in another way than the reference: a ReentrantLock and one
 *  condition per reason to wait, each waited on in a loop and signalled once per change. */
public class StudentBuffer<T> implements Handoff<T> {
    private final Object[] items;
    private int putAt, takeAt, count;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    private final Condition notEmpty = lock.newCondition();

    public StudentBuffer(int capacity) {
        items = new Object[capacity];
    }

    @Override
    public void put(T item) throws InterruptedException {
        lock.lock();
        try {
            while (count == items.length) {
                notFull.await();
            }
            items[putAt] = item;
            putAt = (putAt + 1) % items.length;
            count++;
            notEmpty.signal();
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
                notEmpty.await();
            }
            T item = (T) items[takeAt];
            items[takeAt] = null;
            takeAt = (takeAt + 1) % items.length;
            count--;
            notFull.signal();
            return item;
        } finally {
            lock.unlock();
        }
    }
}
