package handofflab.labs.pht;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.ProbeStarts;
import handofflab.handoffs.SynchronizedRef;

/**
 * Lab "Build the parallel hash table": the handoff of Roussev & Wu (JSA 2006, Sec. 4).
 * ONE acceptor puts connections; many workers take them. Keep the package, the class
 * name, the constructor and the methods' signatures: the grader calls them.
 */
public class StudentPht<T> implements Handoff<T> {
    private final SynchronizedRef<T>[] slots;   // each slot: one reference under its own lock
    private final ProbeStarts starts = new ProbeStarts();   // each take's pseudo-random start key: starts.next(m)

    @SuppressWarnings("unchecked")
    public StudentPht(int m) {
        if (m < 2 || !isPrime(m)) {
            throw new IllegalArgumentException("the table size must be a prime, got " + m);
        }
        slots = new SynchronizedRef[m];
        for (int i = 0; i < m; i++) {
            slots[i] = new SynchronizedRef<>();
        }
        // TODO: what else must a put and a take be able to wait for?
    }

    static boolean isPrime(int n) {
        for (int d = 2; (long) d * d <= n; d++) {
            if (n % d == 0) {
                return false;
            }
        }
        return n >= 2;
    }

    /** The slot of the i-th probe for a non-negative key: double hashing, h1 = k mod m, h2 = 1 + k mod (m - 1). */
    int slotOf(int key, int i) {
        // TODO: the i-th probe of key's double-hashing sequence
        return 0;
    }

    /** Called by the one acceptor. Waits while the table is full. */
    @Override
    public void put(T item) throws InterruptedException {
        throw new UnsupportedOperationException("TODO: put");
    }

    /** Called by any worker. Waits while the table is empty; probes from the key starts.next(m) gives. */
    @Override
    public T take() throws InterruptedException {
        throw new UnsupportedOperationException("TODO: take");
    }
}
