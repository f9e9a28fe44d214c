package handofflab.checks;

import handofflab.dht.CompletionQueue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reply probe: a DHT target's completion queue ({@link CompletionQueue}) driven as its service
 * thread drives it, with the writer played by the probe, which completes each reply's {@code sent}
 * only when it chooses. Deterministic: no reply is ever out before the probe says so, so a buffer
 * given back too early is seen every run, not when a race happens to strike.
 *
 * <p>At depth 2 the service thread hands over six replies, one after another; whenever it waits,
 * the writer sends the oldest reply still out (one of them fails, as when an origin went away).
 * Then every reply is out and the service thread goes idle; then four more replies, and idle again
 * (a queue that gives a buffer back in idle() and keeps it gives it back twice here). The verdicts, in the spec's words
 * (specs/DistributedTable.tla):
 * <ul>
 * <li>{@code violation:AwaitSound}: a buffer went back to the pool before its reply was out: the
 *     next request would be read into it, and the reply would name that one (DistEarlyRelease);</li>
 * <li>{@code violation:NoDuplicate}: a buffer went back twice: two requests would share it;</li>
 * <li>{@code deadlock}: a buffer never came back although its reply is out, or the service thread
 *     waits with every reply out: the pool runs dry and every origin waits (DistOverwrite);</li>
 * <li>{@code pass} otherwise.</li>
 * </ul>
 */
public final class ReplyProbe {
    static final int DEPTH = 2, REPLIES = 10, FAILED = 1;   // reply 1's origin went away: its send fails
    /** The replies before the first idle(): the rest come after it, more than DEPTH, so that a buffer idle() gave
     *  back and kept would be given back again (issue 68's double release). */
    static final int IDLE_AFTER = 6;
    /** How long a call may go on before it counts as waiting for a reply (a spin, or a wait the probe cannot see). */
    static final long SPIN_MS = 2_000;

    private ReplyProbe() {
    }

    public static Verdict run(String className) throws Exception {
        Verdict v = new Verdict("replies", className);
        Ledger ledger = new Ledger(v);
        CompletionQueue queue = create(className, DEPTH, ledger::release, v);
        if (queue == null) {
            return v;
        }
        ExecutorService service = serviceThread();
        try {
            String stuck = drive(queue, ledger, new Writer(service, ledger.sent, v));
            if (stuck != null) {
                return deadlock(v, stuck);
            }
        } catch (ExecutionException e) {
            v.verdict = "violation:NoException";
            v.detail = "the completion queue threw " + e.getCause();
            return v;
        } finally {
            service.shutdownNow();
        }
        return ledger.verdict();
    }

    /**
     * The service thread's calls, in order: a completed() for each reply, an idle() after IDLE_AFTER of them and at the
     * end, each once every reply so far is out; null, or where the service thread waits with every reply out.
     */
    private static String drive(CompletionQueue queue, Ledger ledger, Writer writer) throws Exception {
        for (int i = 0; i <= REPLIES; i++) {
            if (i == IDLE_AFTER || i == REPLIES) {  // every reply so far out, then idle
                writer.sendUpTo(i);
                step(writer.v, new String[] {"service thread", "idle()", "every reply is out"});
                if (!writer.onServiceThread(queue::idle)) {
                    return "the service thread waits in idle() although every reply is out";
                }
            }
            if (i == REPLIES) {
                return null;
            }
            int r = i;
            step(writer.v, new String[] {"service thread", "completed(buffer " + r + ")", inFlight(ledger.sent, r + 1)});
            if (!writer.onServiceThread(() -> queue.completed(ledger.buffers.get(r), ledger.sent.get(r)))) {
                return "the service thread waits in completed(buffer " + r + ") although every reply is out";
            }
        }
        return null;
    }

    /** The buffers and replies of the probe, and what the queue did with each buffer: its pool. */
    private static final class Ledger {
        final List<int[]> buffers = new ArrayList<>();
        final List<CompletableFuture<Void>> sent = new ArrayList<>();
        private final Map<int[], Integer> index = new IdentityHashMap<>();
        private final Map<int[], Integer> released = new IdentityHashMap<>();
        private final List<String> problems = new ArrayList<>();
        private final Verdict v;

        Ledger(Verdict v) {
            this.v = v;
            for (int i = 0; i < REPLIES; i++) {
                int[] b = new int[] {i};
                buffers.add(b);
                sent.add(new CompletableFuture<>());
                index.put(b, i);
            }
        }

        /** The pool: a buffer back from the queue, held to its reply being out, once. */
        void release(int[] b) {
            Integer i = index.get(b);
            if (i == null) {
                problems.add("violation:NoInvented|a buffer the probe never handed over went back to the pool");
                step(v, new String[] {"service thread", "release(a buffer never handed over)", ""});
                return;
            }
            step(v, new String[] {"service thread", "release(buffer " + i + ")",
                    sent.get(i).isDone() ? "reply " + i + " is out" : "reply " + i + " is NOT out yet"});
            if (!sent.get(i).isDone()) {
                problems.add("violation:AwaitSound|buffer " + i + " went back to the pool before its reply was out: the "
                        + "header handler reads the next request into it, and the reply names that request");
            }
            if (released.merge(b, 1, Integer::sum) > 1) {
                problems.add("violation:NoDuplicate|buffer " + i + " went back to the pool twice: two requests would "
                        + "be read into it at once");
            }
        }

        /** Once the service thread is done: the first problem seen, a buffer kept for good, or a pass. */
        Verdict verdict() {
            if (!problems.isEmpty()) {
                String[] first = problems.get(0).split("\\|", 2);
                v.verdict = first[0];
                v.detail = first[1];
                return v;
            }
            List<Integer> kept = new ArrayList<>();
            for (int i = 0; i < REPLIES; i++) {
                if (!released.containsKey(buffers.get(i))) {
                    kept.add(i);
                }
            }
            if (!kept.isEmpty()) {
                return deadlock(v, "buffer(s) " + kept + " never went back to the pool although every reply is out: each "
                        + "request that fills one loses a buffer for good, and once the pool is dry the header handler and "
                        + "every origin wait for ever");
            }
            v.detail = "every buffer went back once, each after its reply was out";
            return v;
        }
    }

    /** One call of the completion queue (it may wait, and be interrupted when the probe ends). */
    @FunctionalInterface
    private interface QueueCall {
        void run() throws InterruptedException;
    }

    /** The writer the probe plays: it sends the oldest reply still out when the service thread waits for one. */
    private static final class Writer {
        final Verdict v;
        private final ExecutorService service;
        private final Thread serviceThread;
        private final List<CompletableFuture<Void>> sent;
        private final int[] nextOut = {0};
        private final AtomicInteger started = new AtomicInteger();  // calls begun
        private int calls;

        Writer(ExecutorService service, List<CompletableFuture<Void>> sent, Verdict v) throws Exception {
            this.service = service;
            this.sent = sent;
            this.v = v;
            Thread[] t = new Thread[1];
            service.submit(() -> t[0] = Thread.currentThread()).get();
            this.serviceThread = t[0];
        }

        void sendUpTo(int replies) {
            while (nextOut[0] < replies) {
                send(sent, nextOut, v);
            }
        }

        /** One call of the queue on the service thread, replies sent while it waits for one (see call). */
        boolean onServiceThread(QueueCall queueCall) throws Exception {
            return call(service.submit(() -> {
                started.incrementAndGet();
                queueCall.run();
                return null;
            }), ++calls, started, serviceThread, sent, nextOut, v);
        }
    }

    /**
     * Waits for the service thread's {@code n}-th call; whenever it waits for a reply, the writer sends the oldest
     * reply still out. False if it still waits with every reply out. It waits for a reply when, inside the call, it
     * is parked in a future, a monitor's wait or a nap (sleep), or has not returned for SPIN_MS (a spin, or another
     * way to wait).
     * A call not yet begun gets no reply early: an early reply would hide a buffer given back before it.
     */
    private static boolean call(Future<?> f, int n, AtomicInteger started, Thread service,
                                List<CompletableFuture<Void>> sent, int[] nextOut, Verdict v) throws Exception {
        while (true) {
            long runnableSince = System.nanoTime();
            while (true) {
                try {
                    f.get(20, TimeUnit.MILLISECONDS);
                    return true;
                } catch (TimeoutException e) {
                    if (started.get() < n) {
                        runnableSince = System.nanoTime();
                        continue;  // the call has not begun
                    }
                    if (waitsForReply(service) || System.nanoTime() - runnableSince > SPIN_MS * 1_000_000) {
                        break;
                    }
                }
            }
            if (nextOut[0] >= sent.size()) {
                return f.isDone() || waitBriefly(f);
            }
            send(sent, nextOut, v);
        }
    }

    /** The queue under probe, or null with the verdict set to why it could not be built. */
    static CompletionQueue create(String className, int depth, CompletionQueue.Pool pool, Verdict v) {
        try {
            return CompletionQueue.create(className, depth, pool);
        } catch (IllegalArgumentException e) {
            v.verdict = "error:Initializer";
            v.detail = e.getMessage();
            return null;
        }
    }

    /** The service thread the probe drives the queue on: one daemon thread, as a target has one. */
    static ExecutorService serviceThread() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "probe-service");
            t.setDaemon(true);
            return t;
        });
    }

    static boolean waitsForReply(Thread t) {
        Thread.State s = t.getState();
        if (s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().startsWith("java.util.concurrent.CompletableFuture")
                    || e.getClassName().equals("java.lang.Object") && e.getMethodName().equals("wait")
                    || e.getClassName().equals("java.lang.Thread") && e.getMethodName().equals("sleep")) {
                return true;
            }
        }
        return false;
    }

    private static boolean waitBriefly(Future<?> f) throws Exception {
        try {
            f.get(SPIN_MS, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }

    /** The writer sends the oldest reply still out. */
    private static void send(List<CompletableFuture<Void>> sent, int[] nextOut, Verdict v) {
        int i = nextOut[0]++;
        if (i == FAILED) {
            sent.get(i).completeExceptionally(new IOException("the origin went away"));
            step(v, new String[] {"writer", "send(reply " + i + ") fails", "its origin went away"});
        } else {
            sent.get(i).complete(null);
            step(v, new String[] {"writer", "send(reply " + i + ")", "reply " + i + " is out"});
        }
    }

    private static String inFlight(List<CompletableFuture<Void>> sent, int handed) {
        int out = 0;
        for (int i = 0; i < handed; i++) {
            out += sent.get(i).isDone() ? 0 : 1;
        }
        return out + " repl" + (out == 1 ? "y" : "ies") + " not out yet";
    }

    /** The probe's thread and the service thread both add steps. */
    private static void step(Verdict v, String[] s) {
        synchronized (v.steps) {
            v.steps.add(s);
        }
    }

    private static Verdict deadlock(Verdict v, String why) {
        v.verdict = "deadlock";
        v.detail = why;
        v.ending.put("service thread", why);
        v.ending.put("writer", "every reply sent; nothing left to send");
        return v;
    }
}
