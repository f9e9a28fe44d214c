package handofflab.checks;

import handofflab.handoffs.CheckProfile;
import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Trace validation's recorder: one acceptor puts ids 1..N into a handoff while the workers take N
 * in all, and every call is logged from outside the class, as it begins and as it returns, with a
 * logical clock (one counter for all threads, read just before the call and just after it). The
 * class is not changed and need not cooperate: a student's class is recorded as it is. TLC then
 * decides whether some order of the calls' effects, each inside its call, is a behaviour of the
 * design's spec (specs/*Trace.tla); the clock keeps every call that ended before another began
 * before it.
 *
 * <p>The workers start first, and the acceptor once they wait for work (PreThreaded), as in a
 * pre-threaded server. Writes OUT as CSV, {@code clock,thread,kind,op,id} sorted by clock (thread 0
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

    private static final class Event {
        final long clock;
        final int thread;
        final String kind, op;
        final int id;

        Event(long clock, int thread, String kind, String op, int id) {
            this.clock = clock;
            this.thread = thread;
            this.kind = kind;
            this.op = op;
            this.id = id;
        }
    }

    static Verdict run(String name, CheckProfile profile, int workers, double seconds, Path out) throws Exception {
        Handoff<Integer> handoff = Handoffs.create(name, profile.size);
        AtomicLong clock = new AtomicLong();
        AtomicInteger takesLeft = new AtomicInteger(PUTS);
        List<List<Event>> logs = new ArrayList<>();
        for (int t = 0; t <= workers; t++) {
            logs.add(Collections.synchronizedList(new ArrayList<>()));  // one per thread; read at a timeout too
        }
        CountDownLatch finished = new CountDownLatch(workers + 1);
        Thread acceptor = new Thread(() -> {
            List<Event> log = logs.get(0);
            try {
                for (int id = 1; id <= PUTS; id++) {
                    log.add(new Event(clock.incrementAndGet(), 0, "begin", "put", id));
                    try {
                        handoff.put(id);
                    } catch (RuntimeException | Error e) {  // no design throws: an event the trace spec cannot read
                        log.add(new Event(clock.incrementAndGet(), 0, "threw", "put", id));
                        return;
                    }
                    log.add(new Event(clock.incrementAndGet(), 0, "end", "put", id));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                finished.countDown();
            }
        }, "acceptor");
        List<Thread> pool = new ArrayList<>();
        for (int w = 1; w <= workers; w++) {
            int me = w;
            pool.add(new Thread(() -> {
                List<Event> log = logs.get(me);
                try {
                    while (takesLeft.getAndDecrement() > 0) {
                        log.add(new Event(clock.incrementAndGet(), me, "begin", "take", 0));
                        Integer id;
                        try {
                            id = handoff.take();
                        } catch (RuntimeException | Error e) {
                            log.add(new Event(clock.incrementAndGet(), me, "threw", "take", 0));
                            return;
                        }
                        log.add(new Event(clock.incrementAndGet(), me, "end", "take", id == null ? -1 : id));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    finished.countDown();
                }
            }, "worker-" + w));
        }
        List<Thread> threads = new ArrayList<>(pool);
        threads.add(acceptor);
        PreThreaded.start(pool, List.of(acceptor));
        // Until every call has returned, or every thread that has not ended waits and the clock has
        // stood still for STALL_MS (a hang: nobody can go on), or the time is up while a thread
        // still runs (a busy machine or a loop: no verdict).
        long deadline = System.nanoTime() + (long) (seconds * 1e9), lastTick = -1, stillSince = System.nanoTime();
        boolean done = false, hung = false, spun = false;
        while (!done && !hung && !spun && System.nanoTime() < deadline) {
            done = finished.await(20, TimeUnit.MILLISECONDS);
            long tick = clock.get(), still = System.nanoTime() - stillSince;
            if (tick != lastTick) {
                lastTick = tick;
                stillSince = System.nanoTime();
                continue;
            }
            hung = !done && still > StressCheck.STALL_MS * 1_000_000L && PreThreaded.allParked(threads);
            spun = !done && !hung && still > StressCheck.SPIN_MS * 1_000_000L;  // as the stress check names a livelock
        }
        List<Event> all = new ArrayList<>();
        for (List<Event> log : logs) {
            synchronized (log) {  // a thread still running may add to its log as we read it
                all.addAll(log);
            }
        }
        all.sort(Comparator.comparingLong(e -> e.clock));
        StringBuilder csv = new StringBuilder("clock,thread,kind,op,id\n");
        for (Event e : all) {
            csv.append(e.clock).append(',').append(e.thread).append(',').append(e.kind).append(',')
                    .append(e.op).append(',').append(e.id).append('\n');
        }
        write(out, csv.toString());
        Verdict v = new Verdict("trace", name);
        v.verdict = done ? "recorded" : hung ? "deadlock" : spun ? "livelock" : "incomplete";
        v.detail = done ? all.size() + " events" : (hung ? "every thread waits, and nothing has happened for "
                + StressCheck.STALL_MS + " ms" : spun ? "no call began or returned for " + StressCheck.SPIN_MS
                + " ms although a thread runs" : "the run did not finish in " + seconds + " s while a thread still runs")
                + ": " + all.size() + " events recorded until then";
        return v;
    }

    private static void write(Path out, String text) throws IOException {
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.write(out, text.getBytes(StandardCharsets.UTF_8));
    }
}
