package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link TwoLockQueue} without its dummy node. An empty queue
 * is {@code head == tail == null}, so an acceptor putting into an empty queue
 * must write {@code head} (the workers' field) under {@code tailLock}, and a
 * worker taking the last node must write {@code tail} (the acceptors' field)
 * under {@code headLock}. Neither lock excludes the other side: a node can be
 * linked behind a node that was just taken, and is lost.
 *
 * <p>TLA+ model: {@code specs/NoDummyQueue.cfg} (TLC: invariant NoLoss).
 */
public final class NoDummyQueue<T> implements Handoff<T>, Stepped {

    private static final class Node<T> {
        final T value;
        volatile Node<T> next;
        Node(T value) {
            this.value = value;
        }
    }

    private final Object headLock = new Object();
    private final Object tailLock = new Object();
    private volatile Node<T> head;  // meant to be guarded by headLock
    private volatile Node<T> tail;  // meant to be guarded by tailLock
    private StepLog steps = StepLog.NONE;  // a recorded run's log, as TwoLockQueue's

    /** As {@link TwoLockQueue}'s, and the steps on the other end's field: slot 0 is the tail end, 1 the head end. */
    @Override
    public void recordSteps(StepLog log) {
        steps = log;
    }

    @Override
    public void put(T item) {
        Node<T> node = new Node<>(item);
        synchronized (tailLock) {
            Node<T> last = tail;    // read once, as the spec's acceptor does: the loss, not an NPE, is the bug shown
            if (last == null) {
                steps.step("set-head", 1, item);
                head = node;        // BUG: the workers' field, written under the wrong lock
            } else {
                steps.step("link", 0, item);
                last.next = node;   // may link behind a node a worker has just taken
            }
            tail = node;
        }
        synchronized (headLock) {
            headLock.notify();
        }
    }

    @Override
    public T take() throws InterruptedException {
        synchronized (headLock) {
            while (head == null) {
                headLock.wait();
            }
            Node<T> first = head;
            head = first.next;
            steps.step("unlink", 1, first.value);
            if (head == null) {
                steps.step("set-tail", 0, null);
                tail = null;        // BUG: the acceptors' field, written under the wrong lock
            }
            return first.value;
        }
    }
}
