package handofflab.checks;

import handofflab.handoffs.CheckProfile;
import handofflab.handoffs.Handoffs;
import handofflab.handoffs.RecordedHandoff;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Trace validation's recorded run: one acceptor puts ids 1..N into a handoff while the workers take
 * N in all, and every call is logged from outside the class by {@link RecordedHandoff}, as it
 * begins and as it returns, on one logical clock. The class is not changed and need not cooperate:
 * a student's class is recorded as it is. TLC then decides whether some order of the calls'
 * effects, each inside its call, is a behaviour of the design's spec (specs/*Trace.tla).
 *
 * <p>The workers start first, and the acceptor once they wait for work (PreThreaded), as in a
 * pre-threaded server. Writes OUT as CSV, {@code clock,thread,kind,op,id,slot} sorted by clock (thread 0
 * is the acceptor; kind is begin, end, or threw for a call that threw, which ends its thread; an id a
 * take returned as null is -1). The verdict is "recorded"; or "deadlock" as
 * soon as every thread that has not ended waits and the clock stands still (nobody can go on); or
 * "livelock" when the clock stands still for StressCheck.SPIN_MS while a thread runs (a loop that
 * hands nothing over); or, when the time is up while calls still happen, "incomplete" (a busy
 * machine: the grader gives it more time). OUT then holds what happened until then.
 */
final class TraceRecord {
    static final int PUTS = 200;

    private TraceRecord() {
    }

    static Verdict run(String name, CheckProfile profile, int workers, double seconds, Path out) throws Exception {
        RecordedHandoff<Integer> handoff = new RecordedHandoff<>(Handoffs.create(name, profile.size));
        CountDownLatch finished = new CountDownLatch(workers + 1);
        Thread acceptor = acceptor(handoff, finished);
        List<Thread> pool = workers(handoff, workers, finished);
        List<Thread> threads = new ArrayList<>(pool);
        threads.add(acceptor);
        PreThreaded.start(pool, List.of(acceptor));
        String ended = await(handoff, finished, threads, seconds);
        int events = handoff.writeTo(out);
        Verdict v = new Verdict("trace", name);
        v.verdict = ended;
        v.detail = ended.equals("recorded") ? events + " events" : (ended.equals("deadlock") ? "every thread waits, and "
                + "nothing has happened for " + StressCheck.STALL_MS + " ms" : ended.equals("livelock") ? "no call began "
                + "or returned for " + StressCheck.SPIN_MS + " ms although a thread runs" : "the run did not finish in "
                + seconds + " s while a thread still runs") + ": " + events + " events recorded until then";
        if (handoff.full()) {  // a spin of steps: what TLC judges is how the run began
            v.detail += " (the log ends at its first " + RecordedHandoff.MAX_EVENTS + " events)";
        }
        return v;
    }

    /** The acceptor: PUTS connections, numbered as the recorder numbers its puts. */
    private static Thread acceptor(RecordedHandoff<Integer> handoff, CountDownLatch finished) {
        return new Thread(() -> {
            try {
                for (int id = 1; id <= PUTS; id++) {
                    handoff.put(id);  // logged as id: the recorder numbers puts 1, 2, ... as this loop does
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | Error e) {  // logged as threw: the trace spec cannot read it
                return;
            } finally {
                finished.countDown();
            }
        }, "acceptor");
    }

    /** The workers, taking PUTS connections between them. */
    private static List<Thread> workers(RecordedHandoff<Integer> handoff, int workers, CountDownLatch finished) {
        AtomicInteger takesLeft = new AtomicInteger(PUTS);
        List<Thread> pool = new ArrayList<>();
        for (int w = 1; w <= workers; w++) {
            pool.add(new Thread(() -> {
                try {
                    while (takesLeft.getAndDecrement() > 0) {
                        handoff.take();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException | Error e) {  // logged as threw, and this thread ends
                    return;
                } finally {
                    finished.countDown();
                }
            }, "worker-" + w));
        }
        return pool;
    }

    /**
     * Until every call has returned ("recorded"), or every thread that has not ended waits and the clock has stood
     * still for STALL_MS ("deadlock": nobody can go on), or nothing moved for SPIN_MS while a thread runs ("livelock"),
     * or the time is up while a thread still runs ("incomplete": a busy machine or a loop, no verdict).
     */
    private static String await(RecordedHandoff<Integer> handoff, CountDownLatch finished, List<Thread> threads,
                                double seconds) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (seconds * 1e9), lastTick = -1, stillSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            if (finished.await(20, TimeUnit.MILLISECONDS)) {
                return "recorded";
            }
            long tick = handoff.calls(), still = System.nanoTime() - stillSince;
            if (tick != lastTick) {
                lastTick = tick;
                stillSince = System.nanoTime();
                continue;
            }
            if (still > StressCheck.STALL_MS * 1_000_000L && PreThreaded.stuck(threads)) {
                return "deadlock";
            }
            if (still > StressCheck.SPIN_MS * 1_000_000L) {  // as the stress check names a livelock
                return "livelock";
            }
        }
        return "incomplete";
    }
}
