package handofflab.jcstress.tests;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import handofflab.handoffs.DekkerHalves;
import handofflab.handoffs.FastBuffer;
import handofflab.jcstress.Lane;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The Dekker pair of a worker's sleep: a worker about to sleep on an empty ring registers, then looks at the put
 * index (under the monitor, as its slow path does); the acceptor publishes the put index, then looks at the
 * registrations. One of the two must see the other's write, or the worker sleeps beside the connection.
 */
// ANCHOR: test
@JCStressTest
@Description("FastBuffer: a worker's registration and the acceptor's put index, each written before the other is read")
@Outcome(id = "true, true", expect = ACCEPTABLE, desc = "each saw the other: the worker does not sleep")
@Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the worker saw the connection and does not sleep")
@Outcome(id = "false, true", expect = ACCEPTABLE, desc = "the acceptor saw the worker registered and wakes it")
@Outcome(id = "false, false", expect = FORBIDDEN,
        desc = "deadlock: neither saw the other: the worker sleeps beside the connection and nobody wakes it")
@State
public class FastBufferWorkerWake {
    private final FastBuffer<Object> buffer = JcstressSubject.buffer(2);

    @Actor
    @Lane(thread = "worker", does = "registers (workersWaiting++), then reads putIndex", results = 1,
            sees = "sees the connection: %s")
    public void worker(ZZ_Result r) {
        synchronized (DekkerHalves.monitorOf(buffer)) {
            r.r1 = !DekkerHalves.workerRegistersThenLooks(buffer, 0);
        }
    }

    @Actor
    @Lane(thread = "acceptor", does = "publishes putIndex = 1, then reads workersWaiting", results = 2,
            sees = "sees a worker registered: %s")
    public void acceptor(ZZ_Result r) {
        r.r2 = DekkerHalves.acceptorPublishesThenLooks(buffer, 1);
    }
}
// ANCHOR_END: test
