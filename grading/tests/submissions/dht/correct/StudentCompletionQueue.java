package handofflab.labs.dht;

import handofflab.dht.CompletionQueue;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/** A reference solution of lab "dht": replies in flight in arrival order; wait for the oldest only beyond the depth. */
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
    public void completed(int[] buffer, CompletableFuture<Void> sent) throws InterruptedException {
        buffers.addLast(buffer);
        sends.addLast(sent);
        while (sends.size() > depth) {
            try {
                sends.removeFirst().join();
            } catch (RuntimeException e) {
                // the origin went away: the buffer is free all the same
            }
            pool.release(buffers.removeFirst());
        }
    }

    @Override
    public void idle() throws InterruptedException {
        while (!sends.isEmpty() && sends.peekFirst().isDone()) {
            sends.removeFirst();
            pool.release(buffers.removeFirst());
        }
    }
}
