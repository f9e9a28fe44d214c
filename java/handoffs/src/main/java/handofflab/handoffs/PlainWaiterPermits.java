package handofflab.handoffs;

/**
 * BUGGY on purpose, and only by the memory model: {@link FastPermits} whose waiter count is a plain field, not a
 * volatile one ({@link PlainWaiterPht}'s permits). Its registration is then a plain store, and the waiter's look at
 * the count after it may pass it: on x86 the store waits in the core's store buffer while the read goes ahead. The
 * waiter sees no permit while the releaser, which added one, sees no waiter: the waiter sleeps beside a permit.
 */
final class PlainWaiterPermits extends FastPermits {
    private int plainWaiters;  // BUG: not volatile (FastPermits' waiters is)

    PlainWaiterPermits(int initial) {
        super(initial);
    }

    @Override
    void register() {
        plainWaiters++;
    }

    @Override
    void unregister() {
        plainWaiters--;
    }

    @Override
    boolean waiting() {
        return plainWaiters > 0;
    }
}
