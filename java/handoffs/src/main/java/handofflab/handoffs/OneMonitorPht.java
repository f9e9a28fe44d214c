package handofflab.handoffs;

/**
 * The parallel hash table as its lab builds it: {@link ParallelHashTable}'s slots, probes and random
 * start, with its two counts, free slots and filled slots, under ONE monitor. The acceptor waits there
 * for a free slot and the workers for a filled one, so one wait set holds both kinds of waiter whenever
 * every slot's item is claimed and not yet swapped out while a worker more comes to take: a wake-up must
 * then reach the right kind, which {@code notifyAll()} does. The kit's own table waits on a monitor per
 * count ({@link Permits}), whose waiters all wait for one thing. {@link NotifyPht} wakes with
 * {@code notify()} where a slot is freed.
 *
 * <p>TLA+: {@code specs/OneMonitorPht.tla} (TakeWakesAll = TRUE: {@code specs/OneMonitorPht.cfg}).
 */
public class OneMonitorPht<T> extends ParallelHashTable<T> {
    public OneMonitorPht(int m) {
        this(m, true);
    }

    OneMonitorPht(int m, boolean takeWakesAll) {
        this(m, new Counts(m, takeWakesAll));
    }

    private OneMonitorPht(int m, Counts counts) {
        super(m, true, counts.free, counts.filled);
    }

    /** The table's two counts, each a PermitCounter, under the one monitor of this object. */
    private static final class Counts {
        private final int[] count = new int[2];   // guarded by this: [FREE] slots a put may fill, [FILLED] items a take may find
        private static final int FREE = 0, FILLED = 1;
        private final boolean takeWakesAll;
        final PermitCounter free = new Count(FREE);
        final PermitCounter filled = new Count(FILLED);

        Counts(int m, boolean takeWakesAll) {
            count[FREE] = m;
            this.takeWakesAll = takeWakesAll;
        }

        private final class Count implements PermitCounter {
            private final int which;

            Count(int which) {
                this.which = which;
            }

            @Override
            public void acquire() throws InterruptedException {
                synchronized (Counts.this) {
                    while (count[which] == 0) {
                        Counts.this.wait();  // the acceptor and the workers wait in this one wait set
                    }
                    count[which]--;
                }
            }

            @Override
            public void release() {
                synchronized (Counts.this) {
                    count[which]++;
                    if (which == FILLED || takeWakesAll) {
                        Counts.this.notifyAll();
                    } else {
                        Counts.this.notify();  // NotifyPht's take: one waiter, which may be a worker
                    }
                }
            }
        }
    }
}
