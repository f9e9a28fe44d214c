package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link MonitorBuffer} with {@code if} instead of {@code while} in
 * {@code put} only; {@code take} re-checks. With one acceptor it is harmless: only a take
 * wakes the acceptor, and nobody else fills the slot it freed. With two acceptors waiting on
 * a full ring, one take wakes both, and both insert: the second overwrites a connection
 * nobody has taken, and the ring holds more than its capacity.
 *
 * <p>TLA+ model: {@code specs/IfInPutBuffer.cfg} (TLC: invariant Bounded).
 */
public final class IfInPutBuffer<T> extends Ring<T> {

    public IfInPutBuffer(int capacity) {
        super(capacity);
    }

    // ANCHOR: put
    @Override
    public synchronized void put(T item) throws InterruptedException {
        if (isFull()) {  // BUG: no re-check after waking; another acceptor may have filled the slot
            step("wait");
            wait();
            step("woke");
        }
        insert(item);
        step("notifyAll");
        notifyAll();
    }
    // ANCHOR_END: put

    @Override
    public synchronized T take() throws InterruptedException {
        while (isEmpty()) {
            step("wait");
            wait();
            step("woke");
        }
        T item = extract();
        step("notifyAll");
        notifyAll();
        return item;
    }
}
