package handofflab.dht;

import java.util.concurrent.CompletableFuture;

/**
 * BUGGY, the Java twin of specs/DistEarlyRelease.cfg: the buffer goes back to the pool as soon as
 * the reply is handed to the writer, so the service thread never waits. But the writer has not read
 * the reply out of it yet: the header handler reads the next request into the same buffer, and a
 * find's reply carries that request's values instead of the ones found.
 */
public final class EarlyReleaseQueue implements CompletionQueue {
    private final Pool pool;

    public EarlyReleaseQueue(int depth, Pool pool) {
        this.pool = pool;
    }

    @Override
    public void completed(int[] buffer, CompletableFuture<Void> sent) throws InterruptedException {
        pool.release(buffer);   // BUG: the reply may not be out of it yet
    }

    @Override
    public void idle() {
    }
}
