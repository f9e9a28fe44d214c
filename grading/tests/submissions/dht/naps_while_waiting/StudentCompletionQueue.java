package handofflab.labs.dht;

import handofflab.dht.CompletionQueue;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/** SLOW sample of lab "dht": right, but when more than q replies are in flight the service thread naps and looks again
 *  instead of waiting to be told: each nap is a millisecond or more, against microseconds for a reply. */
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
            while (!sends.peekFirst().isDone()) {
                Thread.sleep(1);                // SLOW: naps instead of join()
            }
            sends.removeFirst();
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
