package handofflab.labs.pht;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.ProbeStarts;
import handofflab.handoffs.SynchronizedRef;

/** Sample submission, correct and not the lab's table: the right slots, probes and random start, but
 *  every put and take runs under the table's own lock (put is synchronized; take locks `this` through
 *  a local), so no two threads are ever in the table at once: the per-slot locks buy nothing. */
public class StudentPht<T> implements Handoff<T> {
    private final SynchronizedRef<T>[] slots;
    private int free;                    // guarded by this
    private int filled;                  // guarded by this
    private final ProbeStarts starts = new ProbeStarts();   // each take's pseudo-random start key

    @SuppressWarnings("unchecked")
    public StudentPht(int m) {
        if (m < 2 || !isPrime(m)) {
            throw new IllegalArgumentException("the table size must be a prime, got " + m);
        }
        slots = new SynchronizedRef[m];
        for (int i = 0; i < m; i++) {
            slots[i] = new SynchronizedRef<>();
        }
        free = m;
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
        while (free == 0) {
            wait();
        }
        free--;
        int key = item.hashCode() & 0x7fffffff;
        for (int i = 0; ; i++) {
            SynchronizedRef<T> slot = slots[slotOf(key, i)];
            if (slot.get() == null) {
                slot.set(item);
                break;
            }
        }
        filled++;
        notifyAll();
    }

    @Override
    public T take() throws InterruptedException {
        Object table = this;
        synchronized (table) {
            while (filled == 0) {
                table.wait();
            }
            filled--;
            int key = starts.next(slots.length);
            while (true) {
                for (int i = 0; i < slots.length; i++) {
                    T item = slots[slotOf(key, i)].swap(null);
                    if (item != null) {
                        free++;
                        table.notifyAll();
                        return item;
                    }
                }
            }
        }
    }
}
