package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link MonitorBuffer} with {@code notify()} instead of
 * {@code notifyAll()}. The acceptor and the workers share one wait set, and
 * {@code notify()} wakes one arbitrary waiter: a worker that has just taken can
 * wake another worker (which finds the buffer empty and waits again) instead of
 * the acceptor waiting for room — a lost wake-up, and every thread waits for ever.
 *
 * <p>TLA+ model: {@code specs/NotifyBuffer.cfg} (TLC: deadlock). Lincheck misses it
 * (it treats notify as notifyAll); the stress watchdog catches it. JPF reports a deadlock
 * too, but on a path no JVM can take: jpf-core's notify() wakes nobody when two threads
 * wait (handofflab.checks.NotifyWitness), so the catalog does not count JPF's verdict here.
 */
public final class NotifyBuffer<T> extends Ring<T> {

    public NotifyBuffer(int capacity) {
        super(capacity);
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        while (isFull()) {
            step("wait");
            wait();
            step("woke");
        }
        insert(item);
        step("notify");
        notify();  // BUG: may wake a thread that cannot use this change
    }

    // ANCHOR: take
    @Override
    public synchronized T take() throws InterruptedException {
        while (isEmpty()) {
            step("wait");
            wait();
            step("woke");
        }
        T item = extract();
        step("notify");
        notify();  // BUG: may wake another worker instead of the waiting acceptor
        return item;
    }
    // ANCHOR_END: take
}
