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
            Thread filler = Steps.start(threads, "acceptor-1", () -> {
                for (int id = 1; id <= capacity; id++) {
                    handoff.put(id);
                }
            });
            if (!Steps.settled(List.of(filler), true, until)) {
                return;  // the handoff would not take `capacity` connections: the trials will say why
            }
            Thread a = Steps.start(threads, "acceptor-1", () -> handoff.put(capacity + 1));
            Thread b = Steps.start(threads, "acceptor-2", () -> handoff.put(capacity + 2));
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
