package handofflab.labs.dht;

import handofflab.dht.CompletionQueue;
import java.util.concurrent.CompletableFuture;

/**
 * The completion queue of a DHT target (lab "The completion queue": labs/dht/README.md).
 *
 * <p>This starter is the paper's first version: the service thread waits for every reply to be
 * written before it gives the buffer back, so it is right but slow. Make it wait only when more
 * than {@code depth} replies are in flight. Keep the package, the class name and the constructor.
 */
public class StudentCompletionQueue implements CompletionQueue {
    private final int depth;
    private final Pool pool;

    public StudentCompletionQueue(int depth, Pool pool) {
        this.depth = depth;
        this.pool = pool;
    }

    /** The reply of the request in {@code buffer} is with the writer; {@code sent} completes once it is written. */
    @Override
    public void completed(int[] buffer, CompletableFuture<Void> sent) throws InterruptedException {
        try {
            sent.join();              // waits for this reply, whatever the depth
        } catch (RuntimeException e) {
            // the origin went away before its reply was out: the buffer is free all the same
        }
        pool.release(buffer);
    }

    /** The service thread has nothing to do: give back each buffer whose reply is out, without waiting. */
    @Override
    public void idle() throws InterruptedException {
    }
}
