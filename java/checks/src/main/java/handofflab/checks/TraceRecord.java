package handofflab.checks;

import handofflab.handoffs.CheckProfile;
import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * <p>Writes OUT as CSV, {@code clock,thread,kind,op,id} sorted by clock (thread 0 is the
 * acceptor; an id a take returned as null is -1). The verdict is "recorded"; when the run has not
 * finished within its time, "deadlock" if every unfinished thread is waiting (nobody can go on), else
 * "incomplete" (a thread still runs: a busy machine, or a loop; the grader gives it more time). OUT
 * then holds what happened until then.
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
            logs.add(new ArrayList<>());  // one per thread: no sharing while recording
        }
        CountDownLatch finished = new CountDownLatch(workers + 1);
        List<Thread> threads = new ArrayList<>();
        threads.add(new Thread(() -> {
            List<Event> log = logs.get(0);
            try {
                for (int id = 1; id <= PUTS; id++) {
                    log.add(new Event(clock.incrementAndGet(), 0, "begin", "put", id));
                    handoff.put(id);
                    log.add(new Event(clock.incrementAndGet(), 0, "end", "put", id));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                finished.countDown();
            }
        }, "acceptor"));
        for (int w = 1; w <= workers; w++) {
            int me = w;
            threads.add(new Thread(() -> {
                List<Event> log = logs.get(me);
                try {
                    while (takesLeft.getAndDecrement() > 0) {
                        log.add(new Event(clock.incrementAndGet(), me, "begin", "take", 0));
                        Integer id = handoff.take();
                        log.add(new Event(clock.incrementAndGet(), me, "end", "take", id == null ? -1 : id));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    finished.countDown();
                }
            }, "worker-" + w));
        }
        for (Thread t : threads) {
            t.setDaemon(true);  // a stuck thread must not keep the JVM alive
            t.start();
        }
        boolean done = finished.await((long) (seconds * 1000), TimeUnit.MILLISECONDS);
        boolean allWaiting = true;  // a thread that is still RUNNABLE may yet finish: no verdict of a hang
        for (Thread t : threads) {
            Thread.State state = t.getState();
            allWaiting &= state == Thread.State.TERMINATED || state == Thread.State.WAITING
                    || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
        }
        List<Event> all = new ArrayList<>();
        synchronized (logs) {  // a stuck thread adds nothing more: it is blocked inside the handoff
            for (List<Event> log : logs) {
                all.addAll(new ArrayList<>(log));
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
        v.verdict = done ? "recorded" : allWaiting ? "deadlock" : "incomplete";
        v.detail = done ? all.size() + " events" : "the run did not finish in " + seconds + " s ("
                + (allWaiting ? "every thread waits" : "a thread still runs") + "): " + all.size()
                + " events recorded until then";
        return v;
    }

    private static void write(Path out, String text) throws IOException {
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.write(out, text.getBytes(StandardCharsets.UTF_8));
    }
}
