package handofflab.labs.dht;

import handofflab.dht.CompletionQueue;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * Issue 68's slip: idle() gives back each buffer whose reply is out, but leaves it queued, so completed() gives it
 * back a second time once more than the depth are in flight. Two requests are then read into one buffer. It took
 * 374 s to grade and ended "pending" (the pool's put blocked); it must fail, with the slip named.
 */
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
        java.util.Iterator<int[]> buffer = buffers.iterator();
        for (CompletableFuture<Void> sent : sends) {
            if (!sent.isDone()) {
                break;
            }
            pool.release(buffer.next());  // BUG: given back, and left in `buffers` to be given back again
        }
    }
}
