package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link FastPermits} whose waiter looks at the count and only then registers. A
 * release between the look and the registration adds a permit, sees no waiter and wakes nobody; the
 * waiter then sleeps beside a permit it will never be told of: a lost wake-up, the classic slip of a
 * fast path. TLA+: {@code specs/LateWaiterPht.cfg} (TLC: deadlock).
 */
final class LateWaiterPermits extends FastPermits {
    LateWaiterPermits(int initial) {
        super(initial);
    }

    @Override
    void waitForPermit() throws InterruptedException {
        synchronized (this) {
            while (!tryAcquire()) {
                waiters++;  // BUG: registered after the look; a release in between woke nobody
                try {
                    wait();
                } finally {
                    waiters--;
                }
            }
        }
    }
}
