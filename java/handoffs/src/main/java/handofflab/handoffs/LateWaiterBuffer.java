package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link FastBuffer} whose workers look for a connection, then register as waiting. A put
 * that falls between the two publishes its connection, sees nobody waiting and wakes nobody: the worker
 * sleeps beside a connection (a lost wake-up in the fast path). TLA+: {@code specs/LateWaiterBuffer.cfg}
 * (TLC: deadlock).
 */
public final class LateWaiterBuffer<T> extends FastBuffer<T> {
    public LateWaiterBuffer(int capacity) {
        super(capacity, false);
    }
}
