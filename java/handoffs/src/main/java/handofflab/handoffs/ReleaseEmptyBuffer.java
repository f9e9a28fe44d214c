package handofflab.handoffs;

/**
 * BUGGY on purpose, and only by the memory model: {@link FastBuffer} whose worker empties a place with a release
 * store ({@code lazySet}) instead of a volatile write. Every interleaving of its steps is FastBuffer's, so TLC,
 * Lincheck and trace validation pass it. On x86 the store waits in the worker's store buffer while its next read, of
 * {@code acceptorWaiting}, goes ahead: the worker sees no sleeping acceptor while the acceptor, which registered,
 * still sees its place full, and sleeps beside an empty place. jcstress sees it (java/jcstress,
 * FastBufferAcceptorWake): the one line below is the whole difference.
 */
public final class ReleaseEmptyBuffer<T> extends FastBuffer<T> {
    public ReleaseEmptyBuffer(int capacity) {
        super(capacity);
    }

    @Override
    void empty(int at) {
        ring.lazySet(at, null);  // BUG: a release store; the read of acceptorWaiting after it may pass it
    }
}
