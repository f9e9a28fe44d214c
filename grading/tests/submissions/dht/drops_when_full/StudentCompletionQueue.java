package handofflab.labs.dht;

import handofflab.dht.CompletionQueue;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/** BUGGY sample of lab "dht": a full queue makes room by forgetting its oldest entry instead of waiting for it, so
 *  that buffer never goes back to the pool (the spec's DistOverwrite). */
public class StudentCompletionQueue implements CompletionQueue {
    private final int depth;
    private final Pool pool;
    private final ArrayDeque<int[]> buffers = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Void>> sends = new ArrayDeque<>();

    public StudentCompletionQueue(int depth, Pool pool) {
        this.depth = depth;
        this.pool = pool;
    }

    @Override
    public void completed(int[] buffer, CompletableFuture<Void> sent) {
        if (sends.size() == depth) {            // BUG: full: forget the oldest instead of waiting for it
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
