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
 * <p>{@code await()} and {@code wakeAll()} are {@code wait()} and {@code notifyAll()} on this monitor
 * ({@link Ring}): a recorded run logs them for trace validation.
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
            await();
        }
        insert(item);
        wakeAll();
    }
    // ANCHOR_END: put

    // ANCHOR: take
    /** Takes effect at {@code extract}, inside the monitor. */
    @Override
    public synchronized T take() throws InterruptedException {
        while (isEmpty()) {
            await();
        }
        T item = extract();
        wakeAll();
        return item;
    }
    // ANCHOR_END: take
}
