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
            try {
                for (boolean got = registerThenTry(); !got; got = tryAcquire()) {
                    wait();
                }
            } finally {
                unregister();
            }
        }
    }
    // ANCHOR_END: acquire

    // ANCHOR: release
    @Override
    public void release() {
        if (releaseThenLook()) {  // a waiter registered: wake it
            synchronized (this) {
                // notifyAll, as Permits: notify() would do for one permit (JLS 17.2.4: an interrupt does not lose
                // it), but jpf-core's notify() with two waiters wakes neither (checks: NotifyWitness), and JPF's
                // pass on this class would then be no evidence
                notifyAll();
            }
        }
    }
    // ANCHOR_END: release

    // ANCHOR: pair
    // The Dekker pair, each half one method: acquire and release call them, and so do the jcstress tests
    // (java/jcstress), which run the halves side by side on the real JIT and hardware.

    /** The waiter's half, under the monitor: register, then look: true if it took a permit (it need not sleep). */
    final boolean registerThenTry() {
        assert Thread.holdsLock(this) : "a waiter registers only under the monitor it waits on";
        register();  // before the look: a release from now on sees this waiter
        return tryAcquire();
    }

    /** The releaser's half: add the permit, then look: true if a waiter registered. */
    final boolean releaseThenLook() {
        available.incrementAndGet();  // before the look: a waiter from now on sees this permit
        return waiting();
    }

    /** The registration's volatile write: the waiter's read of the count after it cannot pass it. */
    void register() {
        waiters++;
    }

    void unregister() {
        waiters--;
    }

    boolean waiting() {
        return waiters > 0;
    }
    // ANCHOR_END: pair
}
