package handofflab.handoffs;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The pipe design of Roussev &amp; Wu (ICN 2001, Sec. 3.6;
 * its scan is analysed in Sec. 4.2): each worker has its own
 * channel, and the acceptor keeps a worker-status array. To hand off, the
 * acceptor scans the array for a free worker, marks it busy (a compare-and-set,
 * so the mark and the check are one step) and writes the connection into that
 * worker's channel; the worker takes it, serves it, and marks itself free when
 * it comes back for the next one.
 *
 * <p>The channel is a real pipe (a {@link MonitorBuffer}: it queues, and a write
 * to a full pipe waits) or, in the Mailbox variants, a one-slot mailbox that a
 * write overwrites. With pipes the busy flag only balances load; with mailboxes
 * it is what keeps a connection from being overwritten — see the TLA+ models
 * {@code specs/Pipes.tla}: PipesNoBusy and PipesEarlyFree pass, MailboxNoBusy
 * and MailboxEarlyFree lose connections.
 *
 * <p>A thread becomes worker i the first time it calls {@link #take}; at most
 * {@code workers} threads may take.
 */
public class PipeHandoff<T> implements Handoff<T>, Stepped {
    private static final int FREE = 0, BUSY = 1;

    private final AtomicIntegerArray status;       // the WorkerStatus array A[0..n-1]
    private final Handoff<T>[] channels;           // worker i's pipe or mailbox
    private final boolean[] hasServed;             // hasServed[i] is touched by worker i only
    private final boolean markBusy, freeBeforeTake;
    private final Object freed = new Object();     // the acceptor waits here when nobody is free
    private final Map<Thread, Integer> workerOf = new HashMap<>();  // guarded by itself
    private StepLog steps = StepLog.NONE;  // a recorded run's log (trace validation)

    public PipeHandoff(int workers) {
        this(workers, true, true, false);
    }

    @SuppressWarnings("unchecked")
    PipeHandoff(int workers, boolean pipes, boolean markBusy, boolean freeBeforeTake) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, got " + workers);
        }
        status = new AtomicIntegerArray(workers);
        channels = new Handoff[workers];
        for (int i = 0; i < workers; i++) {
            channels[i] = pipes ? new MonitorBuffer<>(1) : new Mailbox.Slot<>();
        }
        hasServed = new boolean[workers];
        this.markBusy = markBusy;
        this.freeBeforeTake = freeBeforeTake;
    }

    // ANCHOR: put
    /** Takes effect when the connection is written into the chosen worker's channel. */
    @Override
    public void put(T item) throws InterruptedException {
        if (item == null) {
            throw new NullPointerException("a handoff carries connections, never null");
        }
        while (true) {
            for (int i = 0; i < status.length(); i++) {   // scan A for a free worker
                if (claim(i, item)) {
                    channels[i].put(item);
                    return;
                }
            }
            synchronized (freed) {                         // nobody free: wait for a worker to free itself
                while (!anyFree()) {
                    freed.wait();
                }
            }
        }
    }
    // ANCHOR_END: put

    /**
     * One probe of the scan; {@link ScanCountingPipes} counts them (the scan bound, ICN 2001 Sec. 4.2).
     * A recorded run logs a claim, which is the put's effect: {@code item} goes to worker i's channel
     * next. Logged after the mark: worker i cannot free itself before it has read {@code item}.
     */
    boolean claim(int i, T item) {
        if (!markBusy) {                    // the NoBusy slip: the status is read, and not marked
            boolean free = status.get(i) == FREE;
            if (free) {
                steps.step("peek", i, item);
            }
            return free;
        }
        boolean claimed = status.compareAndSet(i, FREE, BUSY);
        if (claimed) {
            steps.step("claim", i, item);
        }
        return claimed;
    }

    /**
     * A recorded run logs the workers' status marks and what each worker reads from its channel
     * (worker i is slot i), on the recorder's clock.
     */
    @Override
    public void recordSteps(StepLog log) {
        steps = log;
    }

    /** Workers marked free right now (a snapshot: workers free themselves concurrently). */
    final int freeWorkers() {
        int free = 0;
        for (int i = 0; i < status.length(); i++) {
            free += status.get(i) == FREE ? 1 : 0;
        }
        return free;
    }

    final int workers() {
        return status.length();
    }

    private boolean anyFree() {
        for (int i = 0; i < status.length(); i++) {
            if (status.get(i) == FREE) {
                return true;
            }
        }
        return false;
    }

    /** The calling thread's worker index, assigned on its first take. */
    private int me() {
        synchronized (workerOf) {
            Integer i = workerOf.get(Thread.currentThread());
            if (i == null) {
                if (workerOf.size() == channels.length) {
                    throw new IllegalStateException("more than " + channels.length + " threads take from this PipeHandoff");
                }
                i = workerOf.size();
                workerOf.put(Thread.currentThread(), i);
            }
            return i;
        }
    }

    private void markFree(int i) {
        steps.step("free", i, null);  // before the mark: the acceptor's claim of i is logged after it
        status.set(i, FREE);
        synchronized (freed) {
            freed.notifyAll();
        }
    }

    // ANCHOR: take
    /** Takes effect when the worker takes the connection from its channel. */
    @Override
    public T take() throws InterruptedException {
        int i = me();
        if (freeBeforeTake || hasServed[i]) {
            markFree(i);   // correct: only after serving the previous one; the EarlyFree slip: always, even before taking
        }
        T item = channels[i].take();
        steps.step("read", i, item);  // before this worker's next free, so before the next claim of i
        hasServed[i] = true;
        return item;
    }
    // ANCHOR_END: take
}
