package handofflab.checks;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import handofflab.handoffs.SwapGate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The stress check's step for a lost wake-up that needs more workers than slots (NotifyPht): a table whose
 * two counts share one monitor holds the acceptor (waiting for a free slot) and workers (waiting for an item)
 * in one wait set only while every slot's item is claimed and not yet swapped out and a worker more comes,
 * a window the free trials pass in microseconds. Here it is built: a table of {@value #SLOTS} slots is filled,
 * {@value #SLOTS} takes claim the items and are held just before their swap ({@link SwapGate}), {@value #SLOTS}
 * more workers come and wait, then the acceptor's next put waits behind them; the held takes are let through
 * one at a time, each freeing a slot. A take that wakes with {@code notify()} wakes the longest waiter
 * (HotSpot's wait set is first in, first out), a worker, which finds nothing and waits again, behind the
 * acceptor: after both frees the acceptor still sleeps beside two free slots and every thread waits, a
 * deadlock, every run. TLC finds it with three workers (specs/NotifyPht.cfg), since its notify() may wake any
 * waiter; the JVM's order needs a waiting worker ahead of the acceptor for each slot freed.
 *
 * <p>A design whose takes do not swap a kit slot after claiming, or whose threads do not park where this step
 * expects, gets no verdict from it: the trials judge it.
 */
final class MoreWorkersThanSlots {
    static final int SLOTS = 2;            // the smallest prime table: two claims in flight
    static final long BUDGET_MS = 5_000;   // the whole step, before it gives up without a verdict
    static final long PUT_MS = 1_000;      // how long the acceptor has, after the frees, to put

    private final Handoff<Integer> handoff;
    private final SwapGate gate;
    private final long until;   // the step's deadline (System.nanoTime)
    private final List<Thread> threads = new ArrayList<>();
    private final List<Integer> took = Collections.synchronizedList(new ArrayList<>());
    private final List<Thread> claimers = new ArrayList<>(), waiters = new ArrayList<>();
    private Thread acceptor;

    private MoreWorkersThanSlots(Handoff<Integer> handoff, SwapGate gate, long until) {
        this.handoff = handoff;
        this.gate = gate;
        this.until = until;
    }

    static void probe(String name, Verdict v) throws InterruptedException {
        long until = System.nanoTime() + BUDGET_MS * 1_000_000L;
        SwapGate gate = SwapGate.install();
        Handoff<Integer> handoff;
        try {
            handoff = Handoffs.create(name, SLOTS);
        } finally {
            SwapGate.uninstall();  // only this table's slots keep the gate
        }
        MoreWorkersThanSlots step = new MoreWorkersThanSlots(handoff, gate, until);
        try {
            // each part false: this design or this machine does not let the scene be built, nothing to conclude
            if (step.fill() && step.claimAndHold() && step.workersWait() && step.acceptorWaits() && step.freeOneByOne()
                    && step.acceptorStillSleeps()) {
                step.report(v);
            }
        } finally {
            gate.open();  // nothing stays held: the interrupts below end every thread
            for (Thread t : step.threads) {
                t.interrupt();
            }
        }
    }

    /** The acceptor fills the table's slots (false: the table would not take them; the trials will say why). */
    private boolean fill() throws InterruptedException {
        Thread filler = Steps.start(threads, "acceptor", () -> {
            for (int id = 1; id <= SLOTS; id++) {
                handoff.put(id);
            }
        });
        return Steps.settled(List.of(filler), true, until);
    }

    /** SLOTS takes claim the items and are held before their swap (false: they did not reach a slot's swap). */
    private boolean claimAndHold() throws InterruptedException {
        gate.holdNext(SLOTS);
        for (int i = 1; i <= SLOTS; i++) {
            claimers.add(Steps.start(threads, "worker-" + i, () -> took.add(handoff.take())));
        }
        return gate.awaitHeld(SLOTS, until);
    }

    /** SLOTS more workers come, one at a time (the wait set's order is theirs), and each waits for an item. */
    private boolean workersWait() throws InterruptedException {
        for (int i = SLOTS + 1; i <= 2 * SLOTS; i++) {
            Thread w = Steps.start(threads, "worker-" + i, () -> took.add(handoff.take()));
            waiters.add(w);
            if (!waitsHere(w)) {
                return false;  // a worker that does not wait for an item here
            }
        }
        return true;
    }

    /** The acceptor's next put waits for a free slot, behind the workers (false: the trials judge a put that did not). */
    private boolean acceptorWaits() throws InterruptedException {
        acceptor = Steps.start(threads, "acceptor", () -> handoff.put(SLOTS + 1));
        return waitsHere(acceptor);
    }

    private boolean waitsHere(Thread t) throws InterruptedException {
        return Steps.settled(List.of(t), false, until) && Steps.parked(t) && !Steps.ended(t);
    }

    /** The held takes let through one at a time, each freeing a slot; then each has returned. */
    private boolean freeOneByOne() throws InterruptedException {
        for (int freed = 1; freed <= SLOTS; freed++) {
            gate.letOneThrough();
            int left = SLOTS - freed;
            while (gate.held() > left && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            if (gate.held() > left || !Steps.settled(threads, false, until)) {
                return false;
            }
        }
        return Steps.settled(claimers, true, until);  // else a held take did not return: the trials name that hang
    }

    /** The acceptor, with free slots, does not put within PUT_MS while every other thread waits too (not a machine too
     *  busy to run them). */
    private boolean acceptorStillSleeps() throws InterruptedException {
        long putBy = Math.min(until, System.nanoTime() + PUT_MS * 1_000_000L);
        if (Steps.settled(List.of(acceptor), true, putBy)) {
            return false;  // the acceptor was woken and put: right
        }
        List<Thread> asleep = new ArrayList<>(waiters);
        asleep.add(acceptor);
        return PreThreaded.stuck(asleep);
    }

    /** The deadlock, told as the scene was built: its verdict, the threads' steps and how each ended. */
    private void report(Verdict v) {
        v.verdict = "deadlock";
        v.detail = "a lost wake-up with more workers than slots: both slots' items were claimed, " + SLOTS
                + " more workers waited for an item, and the acceptor's put(" + (SLOTS + 1) + ") waited for a free "
                + "slot behind them in the one wait set; each take that freed a slot woke one waiter (notify()), "
                + "a worker, which found nothing and waited again, and the acceptor still sleeps beside " + SLOTS
                + " free slots: every thread is waiting";
        v.steps.add(new String[] {"acceptor", "put(1), put(2): the table's " + SLOTS + " slots full", ""});
        for (Thread c : claimers) {
            v.steps.add(new String[] {c.getName(), "take() claims an item, held before its swap", ""});
        }
        for (Thread w : waiters) {
            v.steps.add(new String[] {w.getName(), "take() waits: no item to claim", ""});
        }
        v.steps.add(new String[] {"acceptor", "put(" + (SLOTS + 1) + ") waits: no free slot", ""});
        for (int i = 0; i < claimers.size(); i++) {
            v.steps.add(new String[] {claimers.get(i).getName(), "swaps its item out → " + (i < took.size()
                    ? took.get(i) : "?") + ", frees a slot, wakes one waiter", ""});
        }
        for (Thread c : claimers) {
            v.ending.put(c.getName(), "done");
        }
        for (Thread w : waiters) {
            v.ending.put(w.getName(), "WAITING for an item");
        }
        v.ending.put("acceptor", "WAITING in put(" + (SLOTS + 1) + "), " + SLOTS + " free slots beside it");
        v.stats.put("acceptors", 1);
        v.stats.put("size", SLOTS);
        v.stats.put("workers", 2 * SLOTS);
    }
}
