package handofflab.labs.dht;

import handofflab.dht.CompletionQueue;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/** A correct sample of lab "dht", another way than the reference: once more than q replies are in flight it waits
 *  for all of them, not only the oldest. The writer is quick, so this costs little here (0.91 of the kit's speed). */
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
        if (sends.size() > depth) {
            while (!sends.isEmpty()) {          // drains the whole queue, not just the oldest
                try {
                    sends.removeFirst().join();
                } catch (RuntimeException e) {
                    // the origin went away
                }
                pool.release(buffers.removeFirst());
            }
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
