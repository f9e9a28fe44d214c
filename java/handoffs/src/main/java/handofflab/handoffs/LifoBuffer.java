package handofflab.handoffs;

/**
 * A buggy shared buffer that breaks only its design's spec, not exactly-once: a worker takes the
 * connection put <em>last</em>, not the one waiting longest (a stack where the design has a ring).
 * Every connection is still taken exactly once, so Lincheck (which checks a counting handoff), the
 * stress check and JPF all pass it; only trace validation, which holds a run to the design's
 * spec (first in, first out), sees it: a take returns an id that is not the oldest one.
 */
public final class LifoBuffer<T> extends Ring<T> {

    public LifoBuffer(int capacity) {
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
        step("notifyAll");
        notifyAll();
    }

    @Override
    public synchronized T take() throws InterruptedException {
        while (isEmpty()) {
            step("wait");
            wait();
            step("woke");
        }
        T item = extractNewest();  // BUG: the newest, not the oldest
        step("notifyAll");
        notifyAll();
        return item;
    }
}
