package handofflab.dht;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * BUGGY, the Java twin of specs/DistOverwrite.cfg: a full queue drops its oldest entry instead of
 * waiting for it. Its reply still goes out, but its buffer never comes back to the pool; after as
 * many drops as there are spare buffers, the header handler waits for a buffer for ever, and so do
 * the origins waiting for their replies.
 */
public final class OverwriteQueue implements CompletionQueue {
    private final int depth;
    private final Pool pool;
    private final ArrayDeque<int[]> buffers = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Void>> sends = new ArrayDeque<>();

    public OverwriteQueue(int depth, Pool pool) {
        this.depth = depth;
        this.pool = pool;
    }

    @Override
    public void completed(int[] buffer, CompletableFuture<Void> sent) {
        if (buffers.size() > depth - 1 && !buffers.isEmpty()) {  // BUG: full: the oldest is dropped, not waited for
            buffers.removeFirst();
            sends.removeFirst();
        }
        buffers.addLast(buffer);
        sends.addLast(sent);
    }

    @Override
    public void idle() throws InterruptedException {
        while (!sends.isEmpty() && sends.peekFirst().isDone()) {
            sends.removeFirst();
            pool.release(buffers.removeFirst());
        }
    }
}
