package handofflab.jcstress.tests;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import handofflab.handoffs.FastPht;
import handofflab.jcstress.Lane;
import handofflab.jcstress.tests.JcstressSubject.Conn;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Publication through the hash table: the acceptor writes a connection's field, stores it in a slot (an ordered
 * store into the atomic array, no lock) and adds a permit; a worker takes a permit, probes and swaps the connection
 * out. It must be the one put, as it was written.
 */
@JCStressTest
@Description("FastPht: a taken connection is the one put, with the field its acceptor wrote")
@Outcome(id = "8080", expect = ACCEPTABLE, desc = "the connection put, as the acceptor wrote it")
@Outcome(id = "-1", expect = FORBIDDEN, desc = "violation:NoLoss: the worker took null where the connection was put")
@Outcome(expect = FORBIDDEN, desc = "violation:NoLoss: the worker took the connection before its field was written")
@State
public class FastPhtPublication {
    private final FastPht<Conn> table = JcstressSubject.pht(3);

    @Actor
    @Lane(thread = "acceptor", does = "put(a connection on port 8080)")
    public void acceptor() {
        JcstressSubject.put(table, new Conn(8080));
    }

    @Actor
    @Lane(thread = "worker", does = "take()", results = 1, sees = "the connection's port: %s")
    public void worker(I_Result r) {
        Conn c = JcstressSubject.take(table);
        r.r1 = c == null ? -1 : c.port;
    }
}
