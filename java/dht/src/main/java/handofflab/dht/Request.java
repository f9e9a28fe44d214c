package handofflab.dht;

import java.util.concurrent.CountDownLatch;

/**
 * The handle a non-blocking HASH_Insert / HASH_Find / HASH_Delete returns. It is complete when a
 * matching {@link Origin#await} returns; then {@link #processed()} is the number of values the target
 * processed (fewer than asked when its table is full, or when the key has fewer values), and for a
 * find or delete the values themselves are in the array given at initiation.
 */
public final class Request {
    final long id;
    final Op op;
    final int target;
    final long key;
    final int n;
    final int[] values;                 // an insert's input; a find's or delete's output
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile int processed = -1;
    private volatile boolean full;
    private volatile String failure;    // set instead of processed when the request has no known outcome

    Request(long id, Op op, int target, long key, int n, int[] values) {
        this.id = id;
        this.op = op;
        this.target = target;
        this.key = key;
        this.n = n;
        this.values = values;
    }

    void complete(int processed, boolean full) {
        this.full = full;
        this.processed = processed;
        done.countDown();
    }

    void fail(String why) {
        if (done.getCount() > 0) {
            failure = why;
            done.countDown();
        }
    }

    void await() throws InterruptedException {
        done.await();
    }

    boolean isDone() {
        return done.getCount() == 0;
    }

    String failure() {
        return failure;
    }

    /** Values processed by the target; valid once {@link Origin#await} returned for this request. */
    public int processed() {
        if (processed < 0) {
            throw new IllegalStateException("request " + id + " is not complete: call await first");
        }
        return processed;
    }

    /** Whether an insert stopped short because the target's table reached its size limit. */
    public boolean tableFull() {
        return full;
    }

    public Op op() {
        return op;
    }

    public int target() {
        return target;
    }

    public long key() {
        return key;
    }

    @Override
    public String toString() {
        return op + "(target " + target + ", key " + key + ", n " + n + ")";
    }
}
