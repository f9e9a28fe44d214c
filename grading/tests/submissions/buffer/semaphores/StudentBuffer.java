package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;
import java.util.concurrent.Semaphore;

/** Sample submission, correct in another way than the reference: the textbook bounded buffer
 *  with three semaphores (free slots, filled slots, and a binary one around the indices). */
public class StudentBuffer<T> implements Handoff<T> {
    private final Object[] items;
    private int putAt, takeAt;
    private final Semaphore free;
    private final Semaphore filled = new Semaphore(0);
    private final Semaphore mutex = new Semaphore(1);

    public StudentBuffer(int capacity) {
        items = new Object[capacity];
        free = new Semaphore(capacity);
    }

    @Override
    public void put(T item) throws InterruptedException {
        free.acquire();
        mutex.acquire();
        items[putAt] = item;
        putAt = (putAt + 1) % items.length;
        mutex.release();
        filled.release();
    }

    @Override
    @SuppressWarnings("unchecked")
    public T take() throws InterruptedException {
        filled.acquire();
        mutex.acquire();
        T item = (T) items[takeAt];
        items[takeAt] = null;
        takeAt = (takeAt + 1) % items.length;
        mutex.release();
        free.release();
        return item;
    }
}
