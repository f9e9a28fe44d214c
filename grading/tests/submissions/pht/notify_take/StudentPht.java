package handofflab.labs.pht;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.ProbeStarts;
import handofflab.handoffs.SynchronizedRef;

/** Lab "pht" as a student might write it: the reference, but take wakes the acceptor with notify(). In the one
 *  monitor both counts share, with every slot claimed, the one woken may be a worker waiting for an item. */
public class StudentPht<T> implements Handoff<T> {
    private final SynchronizedRef<T>[] slots;
    private final Object counts = new Object();
    private int free;                    // guarded by counts: slots a put may fill
    private int filled;                  // guarded by counts: items a take may find
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
    public void put(T item) throws InterruptedException {
        synchronized (counts) {
            while (free == 0) {
                counts.wait();
            }
            free--;                      // a slot is empty now and only this acceptor fills slots
        }
        int key = item.hashCode() & 0x7fffffff;
        for (int i = 0; ; i++) {
            SynchronizedRef<T> slot = slots[slotOf(key, i)];
            if (slot.get() == null) {    // safe: only this acceptor fills slots
                slot.set(item);
                break;
            }
        }
        synchronized (counts) {
            filled++;
            counts.notifyAll();
        }
    }

    @Override
    public T take() throws InterruptedException {
        int key;
        synchronized (counts) {
            while (filled == 0) {
                counts.wait();
            }
            filled--;                    // this worker's item is in the table: find one
            key = starts.next(slots.length);
        }
        while (true) {
            for (int i = 0; i < slots.length; i++) {
                T item = slots[slotOf(key, i)].swap(null);
                if (item != null) {
                    synchronized (counts) {
                        free++;
                        counts.notify();     // a slot is free again: wake the acceptor (the only one waiting for room)
                    }
                    return item;
                }
            }
        }
    }
}
