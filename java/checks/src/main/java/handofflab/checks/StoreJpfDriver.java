package handofflab.checks;

import handofflab.calendar.EventFolder;
import handofflab.calendar.Events;
import handofflab.calendar.StoreTrials;
import handofflab.calendar.Trials;

/**
 * The program JPF explores for a calendar store (in memory: the same policy, no disk): the paper's
 * A, B and C on one event at once, a move, a delete and a load, each on a thread of its own. JPF
 * tries every interleaving. The rules are specs/CalendarStore.tla's, by its names: the outcome is one of
 * the six orderings (StoreTrials.SIX_ORDERINGS, the delete told OK), nothing brings the event back,
 * and a load never sees half a modification. A broken rule is the AssertionError below; a policy whose
 * locks wait for ever is JPF's NotDeadlockedProperty.
 */
public final class StoreJpfDriver {
    private StoreJpfDriver() {
    }

    /** Argument: the store's class (EventStore, a buggy one, or a student's, by its full name). */
    public static void main(String[] args) throws Exception {
        EventFolder store = StoreTrials.open(args.length > 0 ? args[0] : "handofflab.calendar.EventStore", null);
        int id = store.create(StoreTrials.ORIGINAL);
        Events.Outcome[] a = new Events.Outcome[1], b = new Events.Outcome[1];
        String[] c = new String[1];
        Thread modify = new Thread(() -> a[0] = Trials.unchecked(() -> store.modify(id, StoreTrials.MOVE)), "A-modify");
        Thread delete = new Thread(() -> b[0] = Trials.unchecked(() -> store.delete(id)), "B-delete");
        Thread load = new Thread(() -> c[0] = Trials.unchecked(() -> StoreTrials.seen(store.load(id))), "C-load");
        modify.start();
        delete.start();
        load.start();
        modify.join();
        delete.join();
        load.join();
        // the properties of specs/CalendarStore.tla, by its names; the first broken one is the verdict
        if (store.load(id).isPresent()) {
            throw new AssertionError("NoResurrection: the event is back after its delete (A was told " + a[0] + ")");
        }
        if (c[0].startsWith("torn")) {
            throw new AssertionError("WholeLoads: C saw half a modification: " + c[0]);
        }
        String outcome = a[0] + "/" + c[0];
        if (!StoreTrials.SIX_ORDERINGS.contains(outcome) || b[0] != Events.Outcome.OK) {
            throw new AssertionError("OneOfTheOrderings: A was told " + a[0] + ", B " + b[0] + ", and C saw " + c[0]
                    + ": none of the six orderings");
        }
    }
}
