package handofflab.labs.server;

import handofflab.handoffs.Handoff;

/** BUGGY sample of lab "server": exactly once, but a thread that cannot go on spins (tries the lock
 *  again and again) instead of waiting to be woken. Idle workers burn the cores that the acceptor
 *  and the busy workers need, and the server falls behind its bound. */
public class StudentHandoff<T> implements Handoff<T> {
    private final Object[] ring;
    private int head, count;

    public StudentHandoff(int slots) {
        ring = new Object[slots];
    }

    @Override
    public void put(T item) throws InterruptedException {
        while (true) {                          // SLOW: spins while full
            synchronized (this) {
                if (count < ring.length) {
                    ring[(head + count) % ring.length] = item;
                    count++;
                    return;
                }
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public T take() throws InterruptedException {
        while (true) {                          // SLOW: spins while empty
            synchronized (this) {
                if (count > 0) {
                    T item = (T) ring[head];
                    ring[head] = null;
                    head = (head + 1) % ring.length;
                    count--;
                    return item;
                }
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }
}
