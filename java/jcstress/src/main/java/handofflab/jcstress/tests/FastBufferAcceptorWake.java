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
 * The Dekker pair of the acceptor's sleep: with its one place holding an unclaimed connection, the acceptor registers,
 * then looks at the take index for room (under the monitor, as its slow path does); the worker claims that index,
 * then looks at the registration. One of the two must see the other's write, or the acceptor sleeps with room.
 */
@JCStressTest
@Description("FastBuffer: the acceptor's registration and the worker's claim, each written before the other is read")
@Outcome(id = "true, true", expect = ACCEPTABLE, desc = "each saw the other: the acceptor does not sleep")
@Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the acceptor saw the room and does not sleep")
@Outcome(id = "false, true", expect = ACCEPTABLE, desc = "the worker saw the acceptor registered and wakes it")
@Outcome(id = "false, false", expect = FORBIDDEN,
        desc = "deadlock: neither saw the other: the acceptor sleeps with room and nobody wakes it")
@State
public class FastBufferAcceptorWake {
    private final FastBuffer<Object> buffer = JcstressSubject.buffer(1);

    public FastBufferAcceptorWake() {
        JcstressSubject.put(buffer, new Object());  // the one place full
    }

    @Actor
    @Lane(thread = "acceptor", does = "registers (acceptorWaiting = true), then reads takeAt for index 1's room",
            results = 1, sees = "sees room: %s")
    public void acceptor(ZZ_Result r) {
        synchronized (DekkerHalves.monitorOf(buffer)) {
            r.r1 = !DekkerHalves.acceptorRegistersThenLooksForRoom(buffer, 1);
        }
    }

    @Actor
    @Lane(thread = "worker", does = "claims index 0 (compare-and-set of takeAt), then reads acceptorWaiting",
            results = 2, sees = "sees the acceptor registered: %s")
    public void worker(ZZ_Result r) {
        r.r2 = DekkerHalves.workerClaimsThenLooks(buffer, 0);
    }
}
