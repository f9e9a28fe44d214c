package handofflab.dht;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * BUGGY, and safe: DepthQueue with how many replies may stay in flight kept in a field that idle() resets to
 * how many are in flight, none once every reply is out. From the first idle() on, the service thread waits for
 * every reply, as at q = 0: nothing is lost and every buffer goes back once, after its reply (the reply probe
 * passes it), but the pipelining the paper measured is gone. On the DHT benchmark it ran at 0.70-0.77 of the
 * kit's speed on 2 cores, too close to noise for a speed bar; the depth probe (java/checks DepthProbe), which
 * holds replies back after an idle(), sees it wait every run.
 */
public final class IdleResetQueue implements CompletionQueue {
    private final Pool pool;
    private final ArrayDeque<int[]> buffers = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Void>> sent = new ArrayDeque<>();
    private int limit;

    public IdleResetQueue(int depth, Pool pool) {
        this.limit = depth;
        this.pool = pool;
    }

    @Override
    public void completed(int[] buffer, CompletableFuture<Void> reply) throws InterruptedException {
        buffers.addLast(buffer);
        sent.addLast(reply);
        while (buffers.size() > limit) {
            try {
                sent.removeFirst().join();
            } catch (RuntimeException e) {
                // the origin went away: the buffer is free all the same
            }
            pool.release(buffers.removeFirst());
        }
    }

    @Override
    public void idle() throws InterruptedException {
        while (!sent.isEmpty() && sent.peekFirst().isDone()) {
            sent.removeFirst();
            pool.release(buffers.removeFirst());
        }
        limit = buffers.size();   // BUG: the depth is a constant, not what happens to be in flight now
    }
}
