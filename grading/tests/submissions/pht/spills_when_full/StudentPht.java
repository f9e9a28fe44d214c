package handofflab.labs.pht;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.ProbeStarts;
import handofflab.handoffs.SynchronizedRef;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Sample submission with a plausible design slip: a put never waits. When every slot is full it
 *  spills the connection into a list, which takes search after the table ("the acceptor must never
 *  block"). Every connection is still served exactly once, so Lincheck at three slots (never more
 *  than three puts) and stress pass it; but the table is no longer bounded, which the design it
 *  was asked to build is, and a recorded run shows a put returning while all three slots are full. */
public class StudentPht<T> implements Handoff<T> {
    private final SynchronizedRef<T>[] slots;
    private final ConcurrentLinkedQueue<T> spilled = new ConcurrentLinkedQueue<>();
    private final Object counts = new Object();
    private int filled;                  // guarded by counts: items a take may find
    private final ProbeStarts starts = new ProbeStarts();   // each take's pseudo-random start key

    @SuppressWarnings("unchecked")
    public StudentPht(int m) {
        slots = new SynchronizedRef[m];
        for (int i = 0; i < m; i++) {
            slots[i] = new SynchronizedRef<>();
        }
    }

    int slotOf(int key, int i) {
        int m = slots.length;
        return (int) ((key % m + (long) i * (1 + key % (m - 1))) % m);
    }

    @Override
    public void put(T item) {
        int key = item.hashCode() & 0x7fffffff;
        boolean placed = false;
        for (int i = 0; i < slots.length && !placed; i++) {
            SynchronizedRef<T> slot = slots[slotOf(key, i)];
            if (slot.get() == null) {    // safe: only this acceptor fills slots
                slot.set(item);
                placed = true;
            }
        }
        if (!placed) {
            spilled.add(item);           // BUG (by design): rather than wait for a free slot, spill over
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
            filled--;
            key = starts.next(slots.length);
        }
        while (true) {
            for (int i = 0; i < slots.length; i++) {
                T item = slots[slotOf(key, i)].swap(null);
                if (item != null) {
                    return item;
                }
            }
            T item = spilled.poll();
            if (item != null) {
                return item;
            }
        }
    }
}
