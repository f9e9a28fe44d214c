package handofflab.dht;

import java.util.concurrent.CompletableFuture;

/**
 * The target's completion queue (Malard &amp; Stewart, Sec. 2.2): what the service thread does with a
 * request's receive buffer once it has handed the request's reply to the connection's writer. The
 * writer reads a find's or a delete's reply out of the buffer, so the buffer may go back to the pool
 * only once {@code sent} has completed; and the service thread should wait for that only when more
 * than {@code depth} replies are in flight (the paper's cure for a handler that spent 40 % of its
 * time waiting). One thread, the service thread, calls both methods.
 *
 * <p>An implementation has a public constructor {@code (int depth, Pool pool)}. The kit's is
 * {@code DepthQueue}; the catalog lists buggy ones, each with the verdict the reply probe
 * (java/checks ReplyProbe) must give it, and the DHT lab's submissions implement this interface.
 */
public interface CompletionQueue {
    /** Where receive buffers go back: the header handler takes its next one from there. */
    @FunctionalInterface
    interface Pool {
        void release(int[] buffer) throws InterruptedException;
    }

    /** The reply of the request in {@code buffer} is with the writer; {@code sent} completes once it is written. */
    void completed(int[] buffer, CompletableFuture<Void> sent) throws InterruptedException;

    /** The service thread has nothing to do: give back each buffer whose reply is out, without waiting. */
    void idle() throws InterruptedException;

    /** The class named {@code kind} (simple: in this package; or full), built with {@code depth} and {@code pool}. */
    static CompletionQueue create(String kind, int depth, Pool pool) {
        String name = kind.contains(".") ? kind : CompletionQueue.class.getPackageName() + "." + kind;
        try {
            return (CompletionQueue) Class.forName(name).getConstructor(int.class, Pool.class).newInstance(depth, pool);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw new IllegalArgumentException("the completion queue " + name + " failed in its constructor: "
                    + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("no completion queue " + name + " with a public constructor (int depth, "
                    + "CompletionQueue.Pool pool) that implements handofflab.dht.CompletionQueue", e);
        }
    }
}
