package handofflab.checks;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import java.util.ArrayList;
import java.util.List;

/**
 * The stress check's step for a lost wake-up that needs two waiters of one kind: both workers wait in take
 * on an empty handoff, then two puts come in a row, and both takes must return. A handoff that notifies
 * only when it changes from empty to non-empty wakes one worker for two connections; the other sleeps
 * beside a connection nobody takes (until another such change, which a busy server may never make). The
 * free trials rarely build this state, and when they do the other worker keeps the trial moving, so their
 * watchdog never sees it (issue 47).
 *
 * <p>The two puts run inside the handoff's own monitor, so that a woken worker cannot take between them:
 * a design that locks the handoff object (the buffer lab's monitor) meets the state every run; a design on
 * another lock just sees two quick puts. The handoff holds at least three slots here, so that a take's own
 * notify when the handoff stops being full cannot hide the slip. A design whose workers do not park
 * (they spin, or wait with a time limit) gets no verdict from this step: the trials judge it.
 */
final class TwoWaitingWorkers {
    /** How long the whole step may take before it gives up, without a verdict. */
    static final long BUDGET_MS = 5_000;
    /** How long the second take has to return after the puts: a correct design needs microseconds. */
    static final long SECOND_TAKE_MS = 1_000;

    private TwoWaitingWorkers() {
    }

    static void probe(String name, int capacity, Verdict v) throws InterruptedException {
        if (capacity < 3) {
            return;  // with room for two, the take that ends "full" notifies the other worker, by luck
        }
        long until = System.nanoTime() + BUDGET_MS * 1_000_000L;
        Handoff<Integer> handoff = Handoffs.create(name, capacity);
        List<Thread> threads = new ArrayList<>();
        List<Integer> took = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            Thread w1 = Steps.start(threads, "worker-1", () -> took.add(handoff.take()));
            Thread w2 = Steps.start(threads, "worker-2", () -> took.add(handoff.take()));
            if (!Steps.settled(List.of(w1, w2), false, until) || Steps.ended(w1) || Steps.ended(w2)) {
                return;  // not both waiting on an empty handoff: this step shows nothing
            }
            Thread acceptor = Steps.start(threads, "acceptor", () -> {
                synchronized (handoff) {  // two puts in a row: no woken worker runs between them
                    handoff.put(1);
                    handoff.put(2);
                }
            });
            if (!Steps.settled(List.of(acceptor), true, until)) {
                return;  // the puts did not return: the trials will name that hang
            }
            long second = Math.min(until, System.nanoTime() + SECOND_TAKE_MS * 1_000_000L);
            if (Steps.settled(List.of(w1, w2), true, second) || !Steps.parked(w1, w2)) {
                return;  // both took one, or one is still on its way: nothing to conclude
            }
            Thread asleep = Steps.ended(w1) ? w2 : w1;
            v.verdict = "violation:LostWakeup";
            v.detail = "LostWakeup: two workers waited on an empty handoff, two puts came in a row, and only one worker "
                    + "woke: " + asleep.getName() + " still waits in take() beside a connection nobody takes "
                    + "(a notify sent only when the handoff stops being empty wakes one thread for two connections)";
            v.steps.add(new String[] {"worker-1", "take() waits: empty", ""});
            v.steps.add(new String[] {"worker-2", "take() waits: empty", ""});
            v.steps.add(new String[] {"acceptor", "put(1), then put(2) at once", ""});
            for (Integer id : new ArrayList<>(took)) {
                v.steps.add(new String[] {asleep == w1 ? "worker-2" : "worker-1", "take() → " + id, ""});
            }
            v.ending.put("acceptor", "done: 2 connections in");
            v.ending.put("worker-1", Steps.ended(w1) ? "done" : "WAITING, a connection beside it");
            v.ending.put("worker-2", Steps.ended(w2) ? "done" : "WAITING, a connection beside it");
            v.stats.put("acceptors", 1);
            v.stats.put("size", capacity);
        } finally {
            for (Thread t : threads) {
                t.interrupt();
            }
        }
    }
}
