package handofflab.checks;

import handofflab.handoffs.Handoff;
import java.util.ArrayDeque;

/**
 * A test handoff with the bug a ring hides: a monitor around a deque whose put waits with `if`, not
 * `while`. Woken by one take, both waiting puts go in; nothing is lost or taken twice, the deque just
 * holds one more than its capacity.
 */
public class OverfillingDeque<T> implements Handoff<T> {
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    private final int capacity;

    public OverfillingDeque(int capacity) {
        this.capacity = capacity;
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        if (queue.size() >= capacity) {
            wait();
        }
        queue.addLast(item);
        notifyAll();
    }

    @Override
    public synchronized T take() throws InterruptedException {
        while (queue.isEmpty()) {
            wait();
        }
        T item = queue.removeFirst();
        notifyAll();
        return item;
    }
}
