package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;

/** Sample submission: both bugs fixed. */
/**
 * Lab "Fix the buffer" — your file.  The acceptor thread calls put() with each
 * accepted connection; worker threads call take().  This buffer works with one
 * worker, yet a server with two workers sometimes hangs for ever, and sometimes
 * a worker gets a connection that does not exist.  Find both bugs and fix them.
 * Keep the class name, the package and the constructor.
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
            wait(100);  // a timed wait in a loop: correct (a student's style)
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
            wait(100);  // a timed wait in a loop: correct (a student's style)
        }
        T item = (T) items[takeAt];
        items[takeAt] = null;
        takeAt = (takeAt + 1) % items.length;
        count--;
        notifyAll();
        return item;
    }
}
