package handofflab.checks;

import handofflab.dht.CompletionQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The depth probe: whether a DHT target's completion queue keeps replies in flight up to its depth, judged
 * by what it does, not by a speed ratio. The probe plays the writer and holds every reply back. At depth 2,
 * the service thread hands over two replies: neither call may wait for a reply (two in flight is within the
 * depth). Then every reply goes out, the service thread goes idle, and it hands over two more, again held
 * back: neither may wait either. A queue that waits for every reply, or that stops keeping replies in flight
 * after its first {@code idle()}, waits here every run; on the benchmark its slowdown (0.70-0.77 of the kit's
 * on 2 cores, measured) was too small for a speed bar to tell from noise.
 *
 * <p>{@code violation:WaitsWithinDepth} names the call that waited, {@code pass} otherwise. Safety (a
 * buffer back too early, twice or never) is the reply probe's ({@link ReplyProbe}).
 */
public final class DepthProbe {
    static final int DEPTH = 2;

    private DepthProbe() {
    }

    public static Verdict run(String className) throws Exception {
        Verdict v = new Verdict("depth", className);
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        CompletionQueue queue = ReplyProbe.create(className, DEPTH, buffer -> { }, v);
        if (queue == null) {
            return v;
        }
        ExecutorService service = ReplyProbe.serviceThread();
        Thread[] serviceThread = new Thread[1];
        try {
            service.submit(() -> serviceThread[0] = Thread.currentThread()).get();
            for (String phase : new String[] {"before", "after"}) {
                for (int i = 0; i < DEPTH; i++) {
                    int r = sent.size();
                    CompletableFuture<Void> out = new CompletableFuture<>();
                    sent.add(out);
                    int held = held(sent);
                    v.steps.add(new String[] {"service thread", "completed(buffer " + r + ")",
                        held + " repl" + (held == 1 ? "y" : "ies") + " in flight, depth " + DEPTH});
                    Future<?> call = service.submit(() -> {
                        queue.completed(new int[] {r}, out);
                        return null;
                    });
                    if (!returns(call, serviceThread[0])) {
                        v.verdict = "violation:WaitsWithinDepth";
                        v.detail = "completed(buffer " + r + ") waited for a reply with " + held + " in flight, at depth "
                                + DEPTH + (phase.equals("after") ? ", after idle()" : "") + ": a queue of depth " + DEPTH
                                + " keeps up to " + DEPTH + " replies in flight without waiting"
                                + (phase.equals("after") ? ", after the service thread has been idle too" : "");
                        v.ending.put("service thread", "waits in completed(buffer " + r + ")");
                        v.ending.put("writer", "holds every reply back (" + held + " within the depth)");
                        return v;
                    }
                }
                for (int r = 0; r < sent.size(); r++) {
                    if (!sent.get(r).isDone()) {
                        sent.get(r).complete(null);
                        v.steps.add(new String[] {"writer", "send(reply " + r + ")", "reply " + r + " is out"});
                    }
                }
                if (phase.equals("before")) {
                    v.steps.add(new String[] {"service thread", "idle()", "every reply is out"});
                    Future<?> idle = service.submit(() -> {
                        queue.idle();
                        return null;
                    });
                    if (!returns(idle, serviceThread[0])) {
                        v.verdict = "deadlock";
                        v.detail = "the service thread waits in idle() although every reply is out";
                        return v;
                    }
                }
            }
        } catch (java.util.concurrent.ExecutionException e) {
            v.verdict = "violation:NoException";
            v.detail = "the completion queue threw " + e.getCause();
            return v;
        } finally {
            for (CompletableFuture<Void> f : sent) {
                f.complete(null);  // let a waiting service thread go
            }
            service.shutdownNow();
        }
        v.detail = "within its depth the service thread never waited for a reply, before idle() and after it";
        return v;
    }

    private static int held(List<CompletableFuture<Void>> sent) {
        int n = 0;
        for (CompletableFuture<Void> f : sent) {
            n += f.isDone() ? 0 : 1;
        }
        return n;
    }

    /**
     * Whether the call returned without waiting for a reply: it returns, and is never seen parked in a future, a
     * monitor's wait or a nap before it does, nor still running after ReplyProbe.SPIN_MS (a spin).
     */
    private static boolean returns(Future<?> f, Thread service) throws Exception {
        long until = System.nanoTime() + ReplyProbe.SPIN_MS * 1_000_000L;
        while (System.nanoTime() < until) {
            try {
                f.get(5, TimeUnit.MILLISECONDS);
                return true;
            } catch (TimeoutException e) {
                if (ReplyProbe.waitsForReply(service) && !f.isDone()) {
                    return false;
                }
            }
        }
        return f.isDone();
    }
}
