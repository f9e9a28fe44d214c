package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link FastPht} whose permits register a waiter after looking at the count
 * ({@link LateWaiterPermits}). A put's release that falls between a worker's look and its registration
 * wakes nobody: the worker sleeps while a connection waits in the table. TLA+:
 * {@code specs/LateWaiterPht.cfg} (TLC: deadlock).
 */
public final class LateWaiterPht<T> extends FastPht<T> {
    public LateWaiterPht(int m) {
        super(m, LateWaiterPermits::new);
    }
}
