package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;

/**
 * Correct, though issue 84 took it for a lost wake-up: a take wakes ONE waiter, and only when it makes a full
 * buffer not full (only then can an acceptor wait); every put wakes everyone. Two acceptors wait on a full
 * buffer, two takes come in a row: one acceptor wakes, and its put's notifyAll() wakes the other. TLC proves the
 * design (specs/WakeWhenFullEndsBuffer.cfg: no error), and the kit's twin is WakeWhenFullEndsBuffer.
 */
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
            wait();
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
        if (count == items.length - 1) {
            notify();  // the buffer was full: an acceptor may wait for this room (a put's notifyAll wakes the rest)
        }
        return item;
    }
}
