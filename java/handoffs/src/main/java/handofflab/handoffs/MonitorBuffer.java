package handofflab.handoffs;

/**
 * The shared buffer of Roussev &amp; Wu's pre-threaded server (ICN 2001, Sec. 3):
 * a bounded ring under one Java monitor. The acceptor puts, workers take.
 *
 * <p>Two rules make it correct, and the kit's buggy variants each break one:
 * <ul>
 *   <li>wait in a {@code while} loop: a woken thread re-checks its condition,
 *       because another thread may have got there first ({@link IfBuffer} breaks this);</li>
 *   <li>{@code notifyAll}: acceptor and workers wait in the same wait set for
 *       different conditions, so waking one arbitrary waiter can wake the wrong
 *       kind ({@link NotifyBuffer} breaks this).</li>
 * </ul>
 * TLA+ model: {@code specs/SharedBuffer.tla} with {@code specs/MonitorBuffer.cfg}.
 *
 * <p>{@code step(...)} logs a monitor step in a recorded run ({@link Ring}); elsewhere it does nothing.
 */
public final class MonitorBuffer<T> extends Ring<T> {

    public MonitorBuffer(int capacity) {
        super(capacity);
    }

    // ANCHOR: put
    /** Takes effect at {@code insert}, inside the monitor. */
    @Override
    public synchronized void put(T item) throws InterruptedException {
        while (isFull()) {
            step("wait");  // a recorded run logs the monitor steps (trace validation)
            wait();
            step("woke");
        }
        insert(item);
        step("notifyAll");
        notifyAll();
    }
    // ANCHOR_END: put

    // ANCHOR: take
    /** Takes effect at {@code extract}, inside the monitor. */
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
    // ANCHOR_END: take
}
