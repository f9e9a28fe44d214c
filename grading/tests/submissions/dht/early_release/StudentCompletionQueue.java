package handofflab.labs.dht;

import handofflab.dht.CompletionQueue;
import java.util.concurrent.CompletableFuture;

/** BUGGY sample of lab "dht": never waits, because it gives the buffer back at once; but the writer has not read the
 *  reply out of it yet (the spec's DistEarlyRelease). */
public class StudentCompletionQueue implements CompletionQueue {
    private final Pool pool;

    public StudentCompletionQueue(int depth, Pool pool) {
        this.pool = pool;
    }

    @Override
    public void completed(int[] buffer, CompletableFuture<Void> sent) throws InterruptedException {
        pool.release(buffer);                   // BUG: its reply may not be out yet
    }

    @Override
    public void idle() {
    }
}
