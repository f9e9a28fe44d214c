package handofflab.labs.server;

import handofflab.handoffs.Handoff;

/**
 * Lab "A server that keeps up": the handoff inside the kit's pre-threaded server. One
 * acceptor thread puts each accepted connection; 50 workers take and serve them. Build it
 * from Java monitors (synchronized, wait, notify/notifyAll) — java.util.concurrent and the
 * kit's own handoff classes are not allowed. Keep the package, the class name and the
 * public (int slots) constructor: the server builds it with {@code --slots}.
 */
public class StudentHandoff<T> implements Handoff<T> {
    private final Object[] ring;

    public StudentHandoff(int slots) {
        ring = new Object[slots];
    }

    @Override
    public void put(T item) throws InterruptedException {
        throw new UnsupportedOperationException("TODO: put");
    }

    @Override
    public T take() throws InterruptedException {
        throw new UnsupportedOperationException("TODO: take");
    }
}
