package handofflab.jcstress.tests;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import handofflab.handoffs.DekkerHalves;
import handofflab.handoffs.FastPht;
import handofflab.jcstress.Lane;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The Dekker pair of FastPht's permits (both its semaphores are FastPermits): a worker about to sleep for an item
 * registers, then looks at the count (under the permits' monitor, as its slow path does); the acceptor, having filled
 * a slot, adds a permit, then looks at the registrations. One must see the other's write, or the worker sleeps beside
 * a connection.
 */
@JCStressTest
@Description("FastPht: a waiter's registration and a release's permit, each written before the other is read")
@Outcome(id = "true, true", expect = ACCEPTABLE, desc = "each saw the other: the waiter takes the permit and does not sleep")
@Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the waiter took the permit and does not sleep")
@Outcome(id = "false, true", expect = ACCEPTABLE, desc = "the releaser saw the waiter registered and wakes it")
@Outcome(id = "false, false", expect = FORBIDDEN,
        desc = "deadlock: neither saw the other: the waiter sleeps beside a permit and nobody wakes it")
@State
public class FastPhtPermitsWake {
    private final FastPht<Object> table = JcstressSubject.pht(3);  // no item yet

    @Actor
    @Lane(thread = "worker", does = "registers as a waiter, then takes a permit if there is one", results = 1,
            sees = "took a permit: %s")
    public void worker(ZZ_Result r) {
        synchronized (DekkerHalves.monitorOf(table)) {
            r.r1 = DekkerHalves.waiterRegistersThenTries(table);
        }
    }

    @Actor
    @Lane(thread = "acceptor", does = "adds a permit (an item put), then reads the waiters", results = 2,
            sees = "sees a waiter registered: %s")
    public void acceptor(ZZ_Result r) {
        r.r2 = DekkerHalves.releaserReleasesThenLooks(table);
    }
}
