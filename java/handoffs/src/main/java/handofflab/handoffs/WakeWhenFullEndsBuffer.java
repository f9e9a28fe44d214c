package handofflab.handoffs;

/**
 * CORRECT, though it looks like a slip: {@link MonitorBuffer} whose take wakes ONE waiter with
 * {@code notify()}, and only when its take makes a full buffer not full (a student's saving: only then can an
 * acceptor be waiting). Every put still wakes everyone with {@code notifyAll()}. Two acceptors wait on a full
 * buffer and two takes come in a row: the first wakes one acceptor, the second wakes nobody; but the woken
 * acceptor's put wakes the other, which finds the room. No wake-up is lost.
 *
 * <p>TLA+ model: {@code specs/WakeWhenFullEndsBuffer.cfg} (TLC: no error, 2 acceptors, 2 workers, 2 slots, 4
 * connections). It is in the catalog because issue 84 took it for a lost wake-up; the checkers' passes are results.
 * With a put that wakes one thread too, it is {@link NotifyBuffer}'s bug.
 */
public final class WakeWhenFullEndsBuffer<T> extends Ring<T> {

    public WakeWhenFullEndsBuffer(int capacity) {
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
        boolean wasFull = isFull();
        T item = extract();
        if (wasFull) {  // only a full buffer can have acceptors waiting: wake one of them
            step("notify");
            notify();
        }
        return item;
    }
}
