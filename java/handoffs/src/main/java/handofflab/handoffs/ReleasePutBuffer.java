package handofflab.handoffs;

import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * BUGGY on purpose, and only by the memory model: {@link FastBuffer} whose acceptor publishes the put index with a
 * release store ({@code lazySet}) instead of a volatile write. Every interleaving of its steps is FastBuffer's, so
 * TLC, Lincheck and trace validation pass it: they run on a sequentially consistent machine. On x86 a release store
 * waits in the core's store buffer while the acceptor's next read, of {@code workersWaiting}, goes ahead: the acceptor
 * sees no sleeper while the worker, which registered, still sees the old index, and the worker sleeps beside the
 * connection. jcstress sees it (java/jcstress, FastBufferWorkerWake): the one line below is the whole difference.
 */
public final class ReleasePutBuffer<T> extends FastBuffer<T> {
    private static final AtomicLongFieldUpdater<FastBufferPutIndex> PUT_INDEX =
            AtomicLongFieldUpdater.newUpdater(FastBufferPutIndex.class, "putIndex");

    public ReleasePutBuffer(int capacity) {
        super(capacity);
    }

    // ANCHOR: twin
    @Override
    void publish(long next) {
        PUT_INDEX.lazySet(this, next);  // BUG: a release store; the read of workersWaiting after it may pass it
    }
    // ANCHOR_END: twin
}
