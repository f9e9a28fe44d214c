package handofflab.checks;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import java.util.ArrayList;
import java.util.List;

/**
 * The stress check's first step for a bounded design with two acceptors: the handoff is filled, both
 * acceptors wait in put, and then one take wakes them. A put that does not look again after waking
 * (`if` where `while` belongs) then puts into a full handoff. The free trials reach that state only
 * when both acceptors happen to wait at once: they missed the buffer lab's `if_in_put` sample in 3 of
 * 20 gradings beside two busy loops (measured). Here the state is built on purpose, so it is reached
 * every run.
 *
 * <p>What the takes return is judged first, as in a trial: an id never put (NoInvented) or one taken
 * twice (NoDuplicate) — a ring overwrites a slot when it is overfilled. A handoff that overfills
 * without losing anything (a list with `if` in put) is judged next: both puts returned after the one
 * take, so it held one connection more than its capacity (Bounded, as the spec names it). A design
 * whose acceptors do not park (they spin or wait with a time limit), or that gets stuck here, gets no
 * verdict from this step: the trials after it judge it, with their watchdog.
 */
final class TwoWaitingAcceptors {
    /** How long the whole step may take before it gives up, without a verdict (a design that hangs here). */
    static final long BUDGET_MS = 5_000;
    /**
     * How long the second put has, after the take, to show that it returned too. A correct design keeps
     * it waiting, so every bounded design pays this once per stress check; a woken thread not yet run
     * still reads WAITING, so the step does not conclude from a moment's look.
     */
    static final long SECOND_PUT_MS = 1_000;

    private TwoWaitingAcceptors() {
    }

    static void probe(String name, int capacity, Verdict v) throws InterruptedException {
        long until = System.nanoTime() + BUDGET_MS * 1_000_000L;
        Handoff<Integer> handoff = Handoffs.create(name, capacity);
        List<Thread> threads = new ArrayList<>();
        List<Integer> took = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            Thread[] acceptors = fillThenTwoPuts(handoff, capacity, threads, until);
            if (acceptors == null) {
                return;  // the handoff would not take `capacity` connections: the trials will say why
            }
            Thread a = acceptors[0], b = acceptors[1];
            if (!Steps.settled(List.of(a, b), false, until)) {
                return;  // not both waiting in put on a full handoff: this step shows nothing
            }
            if (Steps.ended(a) || Steps.ended(b)) {
                overfilled(handoff, capacity, a, b, threads, took, until, v);
                return;
            }
            Thread first = Steps.start(threads, "worker-1", () -> took.add(handoff.take()));  // wakes both acceptors
            if (!Steps.settled(List.of(first, a, b), false, until) || !Steps.ended(first) || took.isEmpty()) {
                return;  // the take did not return, or threw: the trials will name that hang or exception
            }
            long second = Math.min(until, System.nanoTime() + SECOND_PUT_MS * 1_000_000L);
            boolean bothReturned = Steps.settled(List.of(a, b), true, second);  // after one take: one put too many
            int left = capacity + 1;  // what two returned puts and one take leave, if both puts returned
            Thread drain = Steps.start(threads, "worker-2", () -> {
                for (int i = 0; i < left; i++) {
                    took.add(handoff.take());
                }
            });
            Steps.settled(List.of(drain), true, until);
            List<Integer> seen = new ArrayList<>();
            for (Integer id : new ArrayList<>(took)) {
                if (id == null || id < 1 || id > capacity + 2) {
                    fail(v, "NoInvented: a worker took " + id + ", which was never accepted", took, capacity,
                            a, b, first, drain);
                    return;
                }
                if (seen.contains(id)) {
                    fail(v, "NoDuplicate: connection " + id + " was taken twice", took, capacity, a, b, first, drain);
                    return;
                }
                seen.add(id);
            }
            if (bothReturned) {
                fail(v, "Bounded: put(" + (capacity + 1) + ") and put(" + (capacity + 2) + ") both returned after "
                        + "one take, so the handoff held " + (capacity + 1) + " connections in room for " + capacity,
                        took, capacity, a, b, first, drain);
            }
        } finally {
            for (Thread t : threads) {
                t.interrupt();
            }
        }
    }

    /** Fills the handoff from acceptor-1, then starts put(capacity + 1) and put(capacity + 2) on two acceptors; null
     *  if the handoff would not take {@code capacity} connections before {@code until}. */
    private static Thread[] fillThenTwoPuts(Handoff<Integer> handoff, int capacity, List<Thread> threads, long until)
            throws InterruptedException {
        Thread filler = Steps.start(threads, "acceptor-1", () -> {
            for (int id = 1; id <= capacity; id++) {
                handoff.put(id);
            }
        });
        if (!Steps.settled(List.of(filler), true, until)) {
            return null;
        }
        return new Thread[] {Steps.start(threads, "acceptor-1", () -> handoff.put(capacity + 1)),
                             Steps.start(threads, "acceptor-2", () -> handoff.put(capacity + 2))};
    }

    /**
     * The acceptors' lost wake-up: both acceptors wait on a full handoff of room for {@code capacity} (at least
     * two), two takes come in a row, and both puts must return. A take that notifies only when the handoff stops
     * being full wakes one acceptor for two free slots; if that acceptor's put then wakes nobody (it notifies
     * only a waiting worker, say), the other sleeps beside free room, and a server whose first acceptor stops
     * (or blocks in accept) serves no one through it. The takes run inside the handoff's own monitor, so that
     * a woken acceptor cannot put between them; so the step is taken only where both acceptors wait in that
     * monitor (the buffer lab's design), and it meets the state every run there. A design on another lock
     * gets no verdict from it: two quick takes would find the slip only by luck.
     */
    static void twoTakes(String name, int capacity, Verdict v) throws InterruptedException {
        if (capacity < 2) {
            return;  // room for one: the second take waits for the first woken put
        }
        long until = System.nanoTime() + BUDGET_MS * 1_000_000L;
        Handoff<Integer> handoff = Handoffs.create(name, capacity);
        List<Thread> threads = new ArrayList<>();
        List<Integer> took = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            Thread[] acceptors = fillThenTwoPuts(handoff, capacity, threads, until);
            if (acceptors == null) {
                return;  // the handoff would not take `capacity` connections: the trials will say why
            }
            Thread a = acceptors[0], b = acceptors[1];
            if (!Steps.settled(List.of(a, b), false, until) || Steps.ended(a) || Steps.ended(b)
                    || !Steps.waitingOn(handoff, a, b)) {
                return;  // not both waiting in the handoff's own monitor: the takes could not be held together
            }
            Thread worker = Steps.start(threads, "worker-1", () -> {
                synchronized (handoff) {  // two takes in a row: no woken acceptor puts between them
                    took.add(handoff.take());
                    took.add(handoff.take());
                }
            });
            if (!Steps.settled(List.of(worker), true, until)) {
                return;  // the takes did not return: the trials will name that hang
            }
            long second = Math.min(until, System.nanoTime() + SECOND_PUT_MS * 1_000_000L);
            if (Steps.settled(List.of(a, b), true, second) || !Steps.parked(a, b)) {
                return;  // both put, or one is still on its way: nothing to conclude
            }
            Thread asleep = Steps.ended(a) ? b : a;
            v.verdict = "violation:LostWakeup";
            v.detail = "LostWakeup: two acceptors waited on a full handoff of " + capacity + ", two takes came in a "
                    + "row, and only one acceptor woke: " + asleep.getName() + " still waits in put() beside free "
                    + "room (a notify sent only when the handoff stops being full wakes one thread for two free "
                    + "slots, and nothing wakes the other)";
            String fill = "put(1.." + capacity + ")";
            v.steps.add(new String[] {"acceptor-1", fill + " fills the handoff", ""});
            v.steps.add(new String[] {"acceptor-1", "put(" + (capacity + 1) + ") waits: full", ""});
            v.steps.add(new String[] {"acceptor-2", "put(" + (capacity + 2) + ") waits: full", ""});
            v.steps.add(new String[] {"worker-1", "take() → " + took.get(0) + ", then take() → " + took.get(1)
                    + " at once: room for two", ""});
            v.ending.put("acceptor-1", Steps.ended(a) ? "put(" + (capacity + 1) + ") returned" : "WAITING, room beside it");
            v.ending.put("acceptor-2", Steps.ended(b) ? "put(" + (capacity + 2) + ") returned" : "WAITING, room beside it");
            v.ending.put("worker-1", "done: 2 connections out");
            v.stats.put("acceptors", 2);
            v.stats.put("size", capacity);
        } finally {
            for (Thread t : threads) {
                t.interrupt();
            }
        }
    }

    /**
     * A put returned into a handoff that already held `capacity` connections, before any take: a design
     * with no bound (a copied linked queue that ignores its size) or one that drops. Drained, it either
     * gives back every connection, one more than its capacity held (Bounded), or loses one, which the
     * trials name (NoLoss) with their swimlanes, so this step leaves that verdict to them.
     */
    private static void overfilled(Handoff<Integer> handoff, int capacity, Thread a, Thread b, List<Thread> threads,
                                   List<Integer> took, long until, Verdict v) throws InterruptedException {
        int held = capacity + (Steps.ended(a) ? 1 : 0) + (Steps.ended(b) ? 1 : 0);
        Thread drain = Steps.start(threads, "worker-1", () -> {
            for (int i = 0; i < held; i++) {
                took.add(handoff.take());
            }
        });
        if (!Steps.settled(List.of(drain), true, until) || new java.util.HashSet<>(took).size() != held
                || took.stream().anyMatch(id -> id == null || id < 1 || id > capacity + 2)) {
            return;  // fewer came back than went in, or something else: the trials judge it
        }
        v.verdict = "violation:Bounded";
        v.detail = "Bounded: with the handoff full (" + capacity + " connection" + (capacity == 1 ? "" : "s")
                + " in room for " + capacity + "), " + (held - capacity == 2 ? "two more puts" : "one more put")
                + " returned before any take, and all " + held + " came back out: put does not wait for room, so "
                + "the handoff is not bounded by the size it was built with";
        String fill = capacity == 1 ? "put(1)" : "put(1.." + capacity + ")";
        v.steps.add(new String[] {"acceptor-1", fill + " fills the handoff", ""});
        v.steps.add(new String[] {"acceptor-1", "put(" + (capacity + 1) + ")" + (Steps.ended(a) ? " returns" : " waits"), ""});
        v.steps.add(new String[] {"acceptor-2", "put(" + (capacity + 2) + ")" + (Steps.ended(b) ? " returns" : " waits"), ""});
        v.steps.add(new String[] {"worker-1", "take() x " + held + " → " + took, ""});
        v.ending.put("acceptor-1", ended(a, "put(" + (capacity + 1) + ") returned"));
        v.ending.put("acceptor-2", ended(b, "put(" + (capacity + 2) + ") returned"));
        v.ending.put("worker-1", "done");
        v.stats.put("acceptors", 2);
        v.stats.put("size", capacity);
    }

    private static void fail(Verdict v, String what, List<Integer> took, int capacity, Thread a, Thread b,
                             Thread first, Thread drain) {
        v.verdict = "violation:" + what.split(":")[0];
        v.detail = what + " (two acceptors waiting on a full handoff of " + capacity + ", woken by one take: "
                + "a put that does not look again after waking puts into no room)";
        String fill = capacity == 1 ? "put(1)" : "put(1.." + capacity + ")";
        v.steps.add(new String[] {"acceptor-1", fill + " fills the handoff", ""});
        v.steps.add(new String[] {"acceptor-1", "put(" + (capacity + 1) + ") waits", ""});
        v.steps.add(new String[] {"acceptor-2", "put(" + (capacity + 2) + ") waits", ""});
        v.steps.add(new String[] {"worker-1", "take() → " + took.get(0) + " (one take: room for one put)", ""});
        for (Integer id : took.subList(1, took.size())) {
            v.steps.add(new String[] {"worker-2", "take() → " + id, ""});
        }
        // where each acceptor was once the first take was done: both returned is one put too many
        v.ending.put("acceptor-1", ended(a, "put(" + (capacity + 1) + ") returned"));
        v.ending.put("acceptor-2", ended(b, "put(" + (capacity + 2) + ") returned"));
        v.ending.put("worker-1", ended(first, "done"));
        v.ending.put("worker-2", ended(drain, "done"));
        v.stats.put("acceptors", 2);
        v.stats.put("size", capacity);
    }

    private static String ended(Thread t, String done) {
        return Steps.ended(t) ? done : t.getState().toString();
    }
}
