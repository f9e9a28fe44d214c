package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link MonitorBuffer} with {@code if} instead of {@code while}
 * around {@code wait()}. After {@code notifyAll()} two workers wake for one item;
 * the first takes it, the second does not re-check and takes from an empty
 * buffer: it gets {@code null}, a connection nobody accepted.
 *
 * <p>TLA+ model: {@code specs/IfBuffer.cfg} (TLC: invariant NoInvented).
 */
public final class IfBuffer<T> extends Ring<T> {

    public IfBuffer(int capacity) {
        super(capacity);
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        if (isFull()) {  // BUG: no re-check after waking
            step("wait");
            wait();
            step("woke");
        }
        insert(item);
        step("notifyAll");
        notifyAll();
    }

    // ANCHOR: take
    @Override
    public synchronized T take() throws InterruptedException {
        if (isEmpty()) {  // BUG: no re-check after waking
            step("wait");
            wait();
            step("woke");
        }
        T item = extract();
        step("notifyAll");
        notifyAll();
        return item;
    }
    // ANCHOR_END: take
}
