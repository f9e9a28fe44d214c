package handofflab.labs.buffer;

import handofflab.handoffs.Handoff;
import java.util.ArrayDeque;

/** Sample submission, buggy: the deque of linked_list with `if` where `while` belongs in put. A deque
 *  cannot be overwritten, so nothing is lost or taken twice: woken by one take, two waiting puts both
 *  go in, and the buffer holds one more than its capacity. */
public class StudentBuffer<T> implements Handoff<T> {
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    private final int capacity;

    public StudentBuffer(int capacity) {
        this.capacity = capacity;
    }

    @Override
    public synchronized void put(T item) throws InterruptedException {
        if (queue.size() == capacity) {
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
