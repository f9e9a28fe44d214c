package handofflab.handoffs;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import handofflab.jcstress.Lane;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The Dekker pair of the acceptor's sleep: with its one place full, the acceptor registers, then looks at the place
 * (under the monitor, as its slow path does); the worker that took the connection empties the place, then looks at
 * the registration. One of the two must see the other's write, or the acceptor sleeps beside an empty place.
 */
@JCStressTest
@Description("FastBuffer: the acceptor's registration and the emptied place, each written before the other is read")
@Outcome(id = "true, true", expect = ACCEPTABLE, desc = "each saw the other: the acceptor does not sleep")
@Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the acceptor saw the place empty and does not sleep")
@Outcome(id = "false, true", expect = ACCEPTABLE, desc = "the worker saw the acceptor registered and wakes it")
@Outcome(id = "false, false", expect = FORBIDDEN,
        desc = "deadlock: neither saw the other: the acceptor sleeps beside an empty place and nobody wakes it")
@State
public class FastBufferAcceptorWake {
    private final FastBuffer<Object> buffer = JcstressSubject.buffer(1);

    public FastBufferAcceptorWake() {
        JcstressSubject.put(buffer, new Object());  // the one place full
    }

    @Actor
    @Lane(thread = "acceptor", does = "registers (acceptorWaiting = true), then reads place 0", results = 1,
            sees = "sees place 0 empty: %s")
    public void acceptor(ZZ_Result r) {
        synchronized (buffer) {
            r.r1 = !buffer.registerThenLookAt(0);
        }
    }

    @Actor
    @Lane(thread = "worker", does = "empties place 0, then reads acceptorWaiting", results = 2,
            sees = "sees the acceptor registered: %s")
    public void worker(ZZ_Result r) {
        r.r2 = buffer.emptyThenLook(0);
    }
}
