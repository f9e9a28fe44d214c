package handofflab.checks;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;

/**
 * Lincheck's model checker over a handoff: it explores thread interleavings of
 * small scenarios and checks every outcome against a sequential handoff — a FIFO
 * of connection ids with the same capacity — so a duplicated, lost or invented
 * id (or any other non-linearizable result) is a violation.
 *
 * <p>Blocking operations need balanced scenarios (as many takes as puts, and
 * never more puts than capacity plus takes), or a correct buffer would block for
 * ever in them; so the kit gives Lincheck hand-written scenarios instead of
 * random ones. Known blind spot: Lincheck treats {@code notify()} as
 * {@code notifyAll()}, so it cannot see a lost wake-up.
 */
public final class LincheckCheck {
    static final int CAPACITY = 1;
    private static volatile String subject = "MonitorBuffer";

    private LincheckCheck() {
    }

    /** The object under test: Lincheck creates one per interleaving it tries. */
    public static final class UnderTest {
        private final Handoff<Integer> handoff = Handoffs.create(subject, CAPACITY);

        @Operation(blocking = true)
        public void put(Integer id) throws InterruptedException {
            handoff.put(id);
        }

        @Operation(blocking = true)
        public Integer take() throws InterruptedException {
            return handoff.take();
        }
    }

    /** The sequential specification: a bounded FIFO; what cannot happen in it throws. */
    public static final class SequentialHandoff {
        private final ArrayDeque<Integer> q = new ArrayDeque<>();

        public void put(Integer id) {
            if (q.size() >= CAPACITY) {
                throw new IllegalStateException("full");
            }
            q.add(id);
        }

        public Integer take() {
            if (q.isEmpty()) {
                throw new IllegalStateException("empty");
            }
            return q.poll();
        }
    }

    public static Verdict run(String name) throws Exception {
        subject = name;
        Verdict v = new Verdict("lincheck", name);
        Method put = UnderTest.class.getMethod("put", Integer.class);
        Method take = UnderTest.class.getMethod("take");
        ModelCheckingOptions options = new ModelCheckingOptions()
                .iterations(0)                       // only the scenarios below
                .invocationsPerIteration(5_000)
                .sequentialSpecification(SequentialHandoff.class);
        List<List<List<Actor>>> scenarios = new ArrayList<>();
        // Two workers wait on an empty buffer; the acceptor hands over two connections.
        scenarios.add(Arrays.asList(List.of(a(take)), List.of(a(take)), List.of(a(put, 1), a(put, 2))));
        // Two acceptors race for one slot; one worker drains it.
        scenarios.add(Arrays.asList(List.of(a(put, 1)), List.of(a(put, 2)), List.of(a(take), a(take))));
        // Each thread both accepts and serves (puts first, so no take can wait for ever).
        scenarios.add(Arrays.asList(List.of(a(put, 1), a(take)), List.of(a(put, 2), a(take))));
        for (List<List<Actor>> parallel : scenarios) {
            options.addCustomScenario(new ExecutionScenario(List.of(), parallel, List.of(), null));
        }
        long start = System.nanoTime();
        try {
            options.check(UnderTest.class);
        } catch (Throwable t) {  // LincheckAssertionError, or Lincheck's own failure
            String msg = String.valueOf(t.getMessage());
            v.trace = msg;
            if (msg.contains("Invalid execution results")) {
                v.verdict = "violation:Linearizable";
                v.detail = "an outcome no sequential handoff can give";
            } else if (msg.contains("has hung") || msg.toLowerCase().contains("deadlock")) {
                v.verdict = "deadlock";
                v.detail = "all threads blocked";
            } else {
                v.verdict = "error";
                v.detail = t.getClass().getSimpleName() + ": " + msg.lines().findFirst().orElse("");
            }
        }
        v.stats.put("scenarios", scenarios.size());
        v.stats.put("seconds", (System.nanoTime() - start) / 1e9);
        return v;
    }

    private static Actor a(Method m, Object... args) {
        return new Actor(m, Arrays.asList(args));
    }
}
