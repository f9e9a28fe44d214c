package handofflab.labs.dht;

import handofflab.dht.CompletionQueue;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * A plausible slip (issue 47): the depth kept as credits, one spent per reply left in flight and given back
 * when completed() frees one, but not when idle() does. After the first idle() that frees a buffer, no credit
 * is left: the service thread waits for every reply, as at q = 0. Safe (the reply probe passes it), and 0.70-0.77
 * of the kit's speed on 2 cores; the depth probe sees it wait within its depth every run.
 */
public class StudentCompletionQueue implements CompletionQueue {
    private final Pool pool;
    private final ArrayDeque<int[]> buffers = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Void>> sends = new ArrayDeque<>();
    private int credits;

    public StudentCompletionQueue(int depth, Pool pool) {
        this.credits = depth;
        this.pool = pool;
    }

    @Override
    public void completed(int[] buffer, CompletableFuture<Void> sent) throws InterruptedException {
        buffers.addLast(buffer);
        sends.addLast(sent);
        if (credits > 0) {
            credits--;
            return;
        }
        try {
            sends.removeFirst().join();
        } catch (RuntimeException e) {
            // the origin went away: the buffer is free all the same
        }
        pool.release(buffers.removeFirst());
    }

    @Override
    public void idle() throws InterruptedException {
        while (!sends.isEmpty() && sends.peekFirst().isDone()) {
            sends.removeFirst();
            pool.release(buffers.removeFirst());   // BUG: the credit this buffer held is not given back
        }
    }
}
