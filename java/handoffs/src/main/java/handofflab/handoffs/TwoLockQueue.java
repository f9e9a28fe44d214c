package handofflab.handoffs;

/**
 * The "concurrent queue" of Roussev &amp; Wu (ICN 2001, Tables 1 and 2), after
 * Michael &amp; Scott's two-lock queue (PODC 1996): an unbounded linked list in
 * which acceptors hold only {@code tailLock} and workers only {@code headLock},
 * so an acceptor never waits for a worker.
 *
 * <p>Invariant: {@code head} is a dummy node (already taken, or the first
 * node); the items are the values of the nodes after it, in put order. The
 * dummy is what lets the two locks work: acceptors touch only {@code tail} and
 * the last node's {@code next}, workers only {@code head}. Without it
 * ({@link NoDummyQueue}) each side must write the other side's field.
 *
 * <p>TLA+ model: {@code specs/TwoLockQueue.tla}.
 */
public final class TwoLockQueue<T> implements Handoff<T>, Stepped {

    private static final class Node<T> {
        T value;                 // written before the node is linked; nulled by the taker
        volatile Node<T> next;   // written under tailLock, read under headLock: volatile
        Node(T value) {
            this.value = value;
        }
    }

    private final Object headLock = new Object();
    private final Object tailLock = new Object();
    private Node<T> head = new Node<>(null);  // guarded by headLock
    private Node<T> tail = head;              // guarded by tailLock
    private StepLog steps = StepLog.NONE;  // a recorded run's log (trace validation)

    /**
     * A recorded run logs each link of a node behind the tail (under the tail lock: the put's effect) and
     * each unlink of the first node after the dummy (under the head lock: the take's effect), with the
     * connection; slot 0 is the tail end, 1 the head end. Each end's steps are in the order they happened.
     */
    @Override
    public void recordSteps(StepLog log) {
        steps = log;
    }

    // ANCHOR: put
    /** Takes effect when the node is linked ({@code tail.next = node}). */
    @Override
    public void put(T item) {
        if (item == null) {
            throw new NullPointerException("a handoff carries connections, never null");
        }
        Node<T> node = new Node<>(item);
        synchronized (tailLock) {
            steps.step("link", 0, item);  // before the link: a worker's unlink of it is logged after
            tail.next = node;
            tail = node;
        }
        synchronized (headLock) {
            // Only workers wait on headLock, all for the same thing, and each put adds
            // one item, so notify() would be enough here (unlike the shared buffer:
            // stress and Lincheck pass it). JPF's java-17 branch reports a deadlock with
            // notify(). Reading its source: with two or more waiters, ElementInfo.notifies takes the next
            // choice of the current scheduling choice generator, which may be a thread
            // that is not waiting, and that notification is lost (a false positive of
            // JPF). notifyAll() is right under every checker and cheap with few workers.
            headLock.notifyAll();
        }
    }
    // ANCHOR_END: put

    // ANCHOR: take
    /** Takes effect when {@code head} moves to the first node. */
    @Override
    public T take() throws InterruptedException {
        synchronized (headLock) {
            while (head.next == null) {
                headLock.wait();
            }
            Node<T> first = head.next;
            T item = first.value;
            first.value = null;  // the first node becomes the new dummy
            head = first;
            steps.step("unlink", 1, item);
            return item;
        }
    }
    // ANCHOR_END: take
}
