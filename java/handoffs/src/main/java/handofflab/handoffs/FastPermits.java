package handofflab.handoffs;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A counting semaphore whose common case takes no lock: the count is an {@link AtomicInteger}, an
 * acquire that finds a permit takes it with one compare-and-set, and a release that finds nobody
 * waiting is one increment. The monitor is for waiting and waking only (JFR put 68 % of the PHT's
 * time in {@link Permits#release}, one monitor taken for every item by the acceptor and every worker).
 *
 * <p><b>No lost wake-up.</b> A waiter registers ({@code waiters++}) and only then looks at the count
 * again, under the monitor; a releaser increments the count and only then looks at {@code waiters}.
 * Both are volatile, so one of the two sees the other's write: either the releaser sees the waiter
 * and wakes it (under the monitor, so not before the waiter is in {@code wait()}), or the waiter
 * sees the permit and never sleeps. Registering after the look ({@link LateWaiterPermits}) breaks
 * exactly this. TLA+: {@code specs/FastPht.tla}.
 */
class FastPermits implements PermitCounter {
    final AtomicInteger available;
    volatile int waiters;  // written under this monitor; read by release without it

    FastPermits(int initial) {
        available = new AtomicInteger(initial);
    }

    /** Takes a permit if there is one, with no lock; false if there was none. */
    final boolean tryAcquire() {
        for (int a = available.get(); a > 0; a = available.get()) {
            if (available.compareAndSet(a, a - 1)) {
                return true;
            }
        }
        return false;
    }

    // ANCHOR: acquire
    @Override
    public void acquire() throws InterruptedException {
        if (!tryAcquire()) {
            waitForPermit();
        }
    }

    /** The slow path: register as a waiter, then look again, and sleep only while there is still nothing. */
    void waitForPermit() throws InterruptedException {
        synchronized (this) {
            waiters++;  // before the look below: a release from now on sees this waiter
            try {
                while (!tryAcquire()) {
                    wait();
                }
            } finally {
                waiters--;
            }
        }
    }
    // ANCHOR_END: acquire

    // ANCHOR: release
    @Override
    public void release() {
        available.incrementAndGet();  // before the look below: a waiter from now on sees this permit
        if (waiters > 0) {
            synchronized (this) {
                // notifyAll, as Permits: notify() would do for one permit (JLS 17.2.4: an interrupt does not lose
                // it), but jpf-core's notify() with two waiters wakes neither (checks: NotifyWitness), and JPF's
                // pass on this class would then be no evidence
                notifyAll();
            }
        }
    }
    // ANCHOR_END: release
}
