package handofflab.jcstress.tests;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import handofflab.handoffs.FastBuffer;
import handofflab.jcstress.Lane;
import handofflab.jcstress.tests.JcstressSubject.Conn;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The ring's reuse of a place: with one place, the acceptor's second put stores where the first was, once the worker
 * has claimed the first (having read it before the claim). The worker must take the first, then the second: never the
 * second twice (read after the reuse, as ClaimThenReadBuffer does), never null, never the first twice.
 */
@JCStressTest
@Description("FastBuffer: one place, two connections: the second stored only after the first was claimed")
@Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "each connection taken once, in order")
@Outcome(id = "2, 2", expect = FORBIDDEN, desc = "violation:NoLoss: the first was overwritten before the worker read it")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "violation:NoDuplicate: the first connection taken twice")
@Outcome(expect = FORBIDDEN, desc = "violation:NoLoss: a take returned null or a connection never put")
@State
public class FastBufferReuse {
    private final FastBuffer<Conn> buffer = JcstressSubject.buffer(1);

    @Actor
    @Lane(thread = "acceptor", does = "put(connection 1), then put(connection 2) into the same place")
    public void acceptor() {
        JcstressSubject.put(buffer, new Conn(1));
        JcstressSubject.put(buffer, new Conn(2));
    }

    @Actor
    @Lane(thread = "worker", does = "take(), then take()", results = {1, 2}, sees = "took connections %s")
    public void worker(II_Result r) {
        Conn first = JcstressSubject.take(buffer);
        Conn second = JcstressSubject.take(buffer);
        r.r1 = first == null ? -1 : first.port;
        r.r2 = second == null ? -1 : second.port;
    }
}
