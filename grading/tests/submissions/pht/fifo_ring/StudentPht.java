package handofflab.labs.pht;

import handofflab.handoffs.Handoff;

/**
 * Exactly once, and not the lab's table (issue 47): the handout's slotOf, then a first-in first-out
 * ring under one monitor. No slot of its own lock, no probing, no random start: a FIFO is a valid
 * order for a handoff, so only a check of the design can tell.
 */
public class StudentPht<T> implements Handoff<T> {
    private final Object[] ring;   // guarded by this
    private int putAt, takeAt, count;

    public StudentPht(int m) {
        if (m < 2 || !isPrime(m)) {
            throw new IllegalArgumentException("the table size must be a prime, got " + m);
        }
        ring = new Object[m];
    }

    static boolean isPrime(int n) {
        for (int d = 2; (long) d * d <= n; d++) {
            if (n % d == 0) {
                return false;
            }
        }
        return n >= 2;
    }

    int slotOf(int key, int i) {
        int m = ring.length;
        return (int) ((key % m + (long) i * (1 + key % (m - 1))) % m);
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        while (count == ring.length) {
            wait();
        }
        ring[putAt] = item;
        putAt = (putAt + 1) % ring.length;
        count++;
        notifyAll();
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized T take() throws InterruptedException {
        while (count == 0) {
            wait();
        }
        T item = (T) ring[takeAt];
        ring[takeAt] = null;
        takeAt = (takeAt + 1) % ring.length;
        count--;
        notifyAll();
        return item;
    }
}
