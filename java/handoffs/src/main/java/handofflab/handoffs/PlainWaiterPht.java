package handofflab.handoffs;

/**
 * BUGGY on purpose, and only by the memory model: {@link FastPht} whose permits count their waiters in a plain field
 * ({@link PlainWaiterPermits}). Every interleaving of its steps is FastPht's, so TLC, Lincheck and trace validation
 * pass it: they run on a sequentially consistent machine. On x86 a waiter's registration waits in its core's store
 * buffer while its look at the count goes ahead, and a release beside it sees no waiter: the waiter sleeps beside a
 * connection. jcstress sees it (java/jcstress, FastPhtPermitsWake).
 */
public final class PlainWaiterPht<T> extends FastPht<T> {
    public PlainWaiterPht(int m) {
        super(m, PlainWaiterPermits::new);
    }
}
