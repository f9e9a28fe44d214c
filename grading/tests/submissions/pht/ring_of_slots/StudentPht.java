package handofflab.labs.pht;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.SynchronizedRef;

/** Sample submission, correct and not the lab's table: a first-in first-out ring over the starter's
 *  SynchronizedRef slots, under one monitor. It writes slotOf and uses the slots, so the design read
 *  from its bytecode passes; no put goes where its probe sequence says, which one thread sees. */
public class StudentPht<T> implements Handoff<T> {
    private final SynchronizedRef<T>[] slots;
    private int putAt;   // guarded by this
    private int takeAt;  // guarded by this
    private int count;   // guarded by this

    @SuppressWarnings("unchecked")
    public StudentPht(int m) {
        if (m < 2 || !isPrime(m)) {
            throw new IllegalArgumentException("the table size must be a prime, got " + m);
        }
        slots = new SynchronizedRef[m];
        for (int i = 0; i < m; i++) {
            slots[i] = new SynchronizedRef<>();
        }
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
        int m = slots.length;
        return (int) ((key % m + (long) i * (1 + key % (m - 1))) % m);
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        while (count == slots.length) {
            wait();
        }
        slots[putAt].set(item);
        putAt = (putAt + 1) % slots.length;
        count++;
        notifyAll();
    }

    @Override
    public synchronized T take() throws InterruptedException {
        while (count == 0) {
            wait();
        }
        T item = slots[takeAt].swap(null);
        takeAt = (takeAt + 1) % slots.length;
        count--;
        notifyAll();
        return item;
    }
}
