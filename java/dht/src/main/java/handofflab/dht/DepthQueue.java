package handofflab.dht;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * The kit's completion queue of depth q: the paper's cure. The service thread leaves each reply in
 * flight and goes on; it waits only for the oldest, and only when more than q are in flight. A
 * buffer goes back to the pool only once its reply has been written. q = 0 is the waiting the
 * paper measured first.
 */
public final class DepthQueue implements CompletionQueue {
    private final int depth;
    private final Pool pool;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();  // the service thread's alone

    private static final class InFlight {
        final int[] buffer;
        final CompletableFuture<Void> sent;

        InFlight(int[] buffer, CompletableFuture<Void> sent) {
            this.buffer = buffer;
            this.sent = sent;
        }
    }

    public DepthQueue(int depth, Pool pool) {
        if (depth < 0) {
            throw new IllegalArgumentException("a completion queue's depth is at least 0, got " + depth);
        }
        this.depth = depth;
        this.pool = pool;
    }

    // ANCHOR: completion
    @Override
    public void completed(int[] buffer, CompletableFuture<Void> sent) throws InterruptedException {
        inFlight.addLast(new InFlight(buffer, sent));
        while (inFlight.size() > depth) {
            InFlight oldest = inFlight.removeFirst();
            try {
                oldest.sent.join();    // the paper's wait: the buffer is still being read out
            } catch (RuntimeException e) {
                // the origin went away before its reply was out; the buffer is free all the same
            }
            pool.release(oldest.buffer);
        }
    }
    // ANCHOR_END: completion

    @Override
    public void idle() throws InterruptedException {
        while (!inFlight.isEmpty() && inFlight.peekFirst().sent.isDone()) {
            pool.release(inFlight.removeFirst().buffer);
        }
    }
}
