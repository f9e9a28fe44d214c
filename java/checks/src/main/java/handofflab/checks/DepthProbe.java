package handofflab.checks;

import handofflab.dht.CompletionQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
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
 * <p>Past its depth the service thread must wait for the oldest reply, and the probe asks how: to be told, or by
 * napping and looking again ({@code violation:PollsForReply}; see {@link #waitsToBeTold}).
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
            // before the first idle(), after it, and past the depth (the depth's buffers, then one more)
            for (String phase : new String[] {"before", "after", "past"}) {
                if (!withinDepth(phase, queue, service, serviceThread[0], sent, v)) {
                    return v;
                }
                if (phase.equals("past")) {
                    if (!waitsToBeTold(queue, service, serviceThread[0], sent, v)) {
                        return v;
                    }
                    break;
                }
                if (!allOutThenIdle(queue, service, serviceThread[0], sent, v)) {
                    return v;
                }
            }
        } catch (ExecutionException e) {
            v.verdict = "violation:NoException";
            v.detail = "the completion queue threw " + e.getCause();
            return v;
        } finally {
            for (CompletableFuture<Void> f : sent) {
                f.complete(null);  // let a waiting service thread go
            }
            service.shutdownNow();
        }
        v.detail = "within its depth the service thread never waited for a reply, before idle() and after it; past it, "
                + "it waited to be told";
        return v;
    }

    /** The depth's replies handed over, every one held back: each call must return (false: the verdict says it
     *  waited within its depth). */
    private static boolean withinDepth(String phase, CompletionQueue queue, ExecutorService service, Thread thread,
            List<CompletableFuture<Void>> sent, Verdict v) throws Exception {
        for (int i = 0; i < DEPTH; i++) {
            Future<?> call = handOver(queue, service, sent, v);
            int r = sent.size() - 1, held = held(sent);
            if (!returns(call, thread)) {
                boolean idled = !phase.equals("before");
                v.verdict = "violation:WaitsWithinDepth";
                v.detail = "completed(buffer " + r + ") waited for a reply with " + held + " in flight, at depth "
                        + DEPTH + (idled ? ", after idle()" : "") + ": a queue of depth " + DEPTH
                        + " keeps up to " + DEPTH + " replies in flight without waiting"
                        + (idled ? ", after the service thread has been idle too" : "");
                v.ending.put("service thread", "waits in completed(buffer " + r + ")");
                v.ending.put("writer", "holds every reply back (" + held + " within the depth)");
                return false;
            }
        }
        return true;
    }

    /** Every reply sent, then idle(): what is out goes back and none counts any more, so the next phase starts from
     *  an idle queue (false: the verdict says idle() waited with every reply out). */
    private static boolean allOutThenIdle(CompletionQueue queue, ExecutorService service, Thread thread,
            List<CompletableFuture<Void>> sent, Verdict v) throws Exception {
        for (int r = 0; r < sent.size(); r++) {
            if (!sent.get(r).isDone()) {
                sent.get(r).complete(null);
                v.steps.add(new String[] {"writer", "send(reply " + r + ")", "reply " + r + " is out"});
            }
        }
        v.steps.add(new String[] {"service thread", "idle()", "every reply is out"});
        Future<?> idle = service.submit(() -> {
            queue.idle();
            return null;
        });
        if (!returns(idle, thread)) {
            v.verdict = "deadlock";
            v.detail = "the service thread waits in idle() although every reply is out";
            return false;
        }
        return true;
    }

    /**
     * Past its depth the service thread may wait for the oldest reply, and it should wait to be told, not nap and look
     * again: with the depth's replies and one more held back for {@link #HOLD_MS}, a thread that waits on the future
     * (or a monitor) wakes a few times at most, and one that naps a millisecond at a time ~200 times (measured on
     * 2 cores, beside two busy loops too). Its speed on the benchmark depends on the machine's load, which makes a
     * nap cheap when every reply is late; what it does here does not. A call that returns at once (a queue that drops
     * or never waits) has nothing to judge here. Wake-ups are the kernel's count (Linux); a thread seen running in
     * most looks spins.
     */
    private static boolean waitsToBeTold(CompletionQueue queue, ExecutorService service, Thread thread,
            List<CompletableFuture<Void>> sent, Verdict v) throws Exception {
        Future<?> call = handOver(queue, service, sent, v);
        int r = sent.size() - 1;
        try {
            call.get(50, TimeUnit.MILLISECONDS);
            return true;  // past its depth it did not wait: nothing to judge here
        } catch (TimeoutException e) {
            // waits for the oldest reply, as it may: how?
        }
        long before = wakeUps(thread);
        int looks = 0, running = 0;
        for (long until = System.nanoTime() + HOLD_MS * 1_000_000L; System.nanoTime() < until; looks++) {
            running += thread.getState() == Thread.State.RUNNABLE ? 1 : 0;
            Thread.sleep(5);
        }
        long woke = before < 0 ? -1 : wakeUps(thread) - before;
        for (CompletableFuture<Void> f : sent) {
            f.complete(null);
        }
        v.steps.add(new String[] {"writer", "send(every reply)", "after " + HOLD_MS + " ms"});
        boolean returned;
        try {
            call.get(ReplyProbe.SPIN_MS, TimeUnit.MILLISECONDS);
            returned = true;
        } catch (TimeoutException e) {
            returned = false;
        }
        if (woke > POLL_WAKES || running * 2 > looks) {
            v.verdict = "violation:PollsForReply";
            v.detail = "past its depth, completed(buffer " + r + ") waited for the oldest reply by looking again and "
                    + "again: " + (woke > POLL_WAKES ? "the service thread woke " + woke + " times" : "it was running in "
                    + running + " of " + looks + " looks") + " while the replies were held back for " + HOLD_MS
                    + " ms. A thread that waits to be told (join() on the reply, or a monitor's wait) wakes once, "
                    + "when the reply is out; a nap of a millisecond costs far more than a reply takes";
            v.ending.put("service thread", "naps and looks in completed(buffer " + r + ")");
            v.ending.put("writer", "holds every reply back for " + HOLD_MS + " ms");
            return false;
        }
        if (!returned) {
            v.verdict = "deadlock";
            v.detail = "completed(buffer " + r + ") still waits although every reply is out";
            return false;
        }
        return true;
    }

    static final long HOLD_MS = 200;
    static final int POLL_WAKES = 20;  // a nap of a millisecond wakes ~200 times in HOLD_MS; get(50 ms) 4 times

    /** The kernel's count of the times the thread gave up its core and was woken (Linux); -1 where unknown. */
    static long wakeUps(Thread thread) {
        for (java.nio.file.Path task : PreThreaded.kernelTasks(List.of(thread))) {
            try {
                for (String line : java.nio.file.Files.readAllLines(task.resolve("status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:")) {
                        return Long.parseLong(line.split("\\s+")[1]);
                    }
                }
            } catch (java.io.IOException | RuntimeException e) {
                return -1;
            }
        }
        return -1;
    }

    /** The service thread hands the next buffer over, its reply held back by the writer; the step is drawn. */
    private static Future<?> handOver(CompletionQueue queue, ExecutorService service, List<CompletableFuture<Void>> sent,
            Verdict v) {
        int r = sent.size();
        CompletableFuture<Void> out = new CompletableFuture<>();
        sent.add(out);
        int held = held(sent);
        v.steps.add(new String[] {"service thread", "completed(buffer " + r + ")",
            held + " repl" + (held == 1 ? "y" : "ies") + " in flight, depth " + DEPTH});
        return service.submit(() -> {
            queue.completed(new int[] {r}, out);
            return null;
        });
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
