package handofflab.checks;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.CheckProfile;
import handofflab.handoffs.Handoffs;
import handofflab.handoffs.ProbeStarts;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * Lincheck's model checker over a handoff: it explores the thread interleavings
 * of small scenarios (and every choice of the thread a monitor wakes, except that
 * it treats {@code notify()} as {@code notifyAll()}).
 *
 * <p>Exactly-once is checked two ways. Every outcome must be explainable by a
 * sequential handoff that only counts items (a take needs an earlier put; a put
 * into a full bounded handoff waits) — the order of what comes out is not
 * checked, because the PHT and the pipes are not FIFO. And a validation function
 * checks what the workers took: nothing null or never put (NoInvented), nothing
 * twice (NoDuplicate); and a lost item leaves a take that never returns, which
 * Lincheck reports as a hang (deadlock).
 *
 * <p>Blocking operations need balanced scenarios (as many takes as puts), or a
 * correct handoff would block for ever in them; so the kit gives Lincheck
 * hand-written scenarios, respecting each design's contract (the PHT and the
 * pipes have ONE acceptor; the pipes need a taking thread per worker).
 */
public final class LincheckCheck {
    /**
     * Interleavings tried per scenario by the handoff checks. Lincheck's search is the same every run,
     * so a bug it finds it finds every time; every catalogued handoff bug and every buffer and PHT sample
     * is found within 100 (TwoProducerPht's hang needs more than 25), so 400 keeps a margin of four.
     */
    static final int INVOCATIONS = 400;
    /**
     * The same for the classes that are not handoffs (the calendar's store and lists, the DHT's table):
     * every catalogued bug of theirs and every calendar sample's is found within 25 (measured with 25 on
     * every such pair and every calendar grading), so 100 keeps the same margin of four; a correct store
     * costs 6 CPU-s instead of 10. One race has more: the store's race on a fresh event's lock
     * (StoreLincheck.FRESH_LOCK_INVOCATIONS).
     */
    static final int CLASS_INVOCATIONS = 100;

    private static volatile String subject;
    private static volatile CheckProfile profile;  // Lincheck builds UnderTest itself: the run sets these first

    private LincheckCheck() {
    }

    /** The object under test: Lincheck creates one per interleaving it tries. */
    public static final class UnderTest {
        /** Ids are small (the scenarios below use 1 to 4); each is an index of the arrays below. */
        private static final int IDS = 8;
        // What was put and taken, in atomic arrays rather than synchronized lists and sets: Lincheck
        // instruments every JDK collection call, and a lock and a list per operation, and the lists and
        // sets built again by exactlyOnce after every interleaving, made a check four times as long
        // (MonitorBuffer, 2 cores: 10-11 s with them, 2.4 s with these; the same verdicts).
        private final Handoff<Integer> handoff = Handoffs.create(subject, profile.size);
        private final AtomicIntegerArray puts = new AtomicIntegerArray(IDS);   // times each id was put
        private final AtomicReferenceArray<Integer> taken = new AtomicReferenceArray<>(IDS);  // the ids taken, in order
        private final AtomicInteger takes = new AtomicInteger();

        @Operation(blocking = true)
        public void put(Integer id) throws InterruptedException {
            puts.incrementAndGet(id);
            handoff.put(id);
        }

        @Operation(blocking = true)
        public void take() throws InterruptedException {
            Integer id = handoff.take();
            taken.set(takes.getAndIncrement(), id);
        }

        /** Called by Lincheck after the scenario's parallel part: nothing invented, nothing twice. A loss needs
         *  no test here: a scenario takes as many as it puts, so a lost item leaves a take that never returns,
         *  which Lincheck reports as a hang. */
        @Validate
        public void exactlyOnce() {
            int n = takes.get();
            boolean[] seen = new boolean[IDS];
            for (int i = 0; i < n; i++) {
                Integer id = taken.get(i);
                if (id == null || id < 0 || id >= IDS || puts.get(id) == 0) {
                    throw new IllegalStateException("NoInvented: a worker took " + id + ", which was never put");
                }
                if (seen[id]) {
                    throw new IllegalStateException("NoDuplicate: " + id + " was taken twice");
                }
                seen[id] = true;
            }
        }
    }

    /** The sequential specification: it counts items and nothing else. */
    public static final class SequentialHandoff {
        private final int capacity = profile.capacity();
        private int items;

        public void put(Integer id) {
            if (items >= capacity) {
                throw new IllegalStateException("full");
            }
            items++;
        }

        public void take() {
            if (items == 0) {
                throw new IllegalStateException("empty");
            }
            items--;
        }
    }

    public static Verdict run(String name, CheckProfile checkProfile) throws Exception {
        subject = name;
        profile = checkProfile;
        Verdict v = new Verdict("lincheck", name);
        Method put = UnderTest.class.getMethod("put", Integer.class);
        Method take = UnderTest.class.getMethod("take");
        ModelCheckingOptions options = handoffOptions();
        List<List<List<Actor>>> scenarios = freeScenarios(put, take);
        for (List<List<Actor>> scenario : scenarios) {
            options.addCustomScenario(new ExecutionScenario(List.of(), scenario, List.of(), null));
        }
        long start = System.nanoTime();
        try {
            options.check(UnderTest.class);
            builtScenarios(put, take);
        } catch (Throwable t) {  // LincheckAssertionError, or Lincheck's own failure
            String msg = String.valueOf(t.getMessage());
            v.trace = msg;
            Matcher m = Pattern.compile("(NoInvented|NoDuplicate): [^\\n]*").matcher(msg);
            if (m.find()) {
                v.verdict = "violation:" + m.group(1);
                v.detail = m.group(0);
            } else {
                judge(v, t, "an outcome no sequential handoff can give");
            }
        } finally {
            ProbeStarts.unsteer();
        }
        v.stats.put("scenarios", scenarios.size() + (profile.sameSlotTakes ? 1 : 0) + (profile.lappingPut ? 1 : 0)
                + (profile.startKeys.length > 0 ? 1 : 0));
        v.stats.put("seconds", (System.nanoTime() - start) / 1e9);
        return v;
    }

    /** The scenarios Lincheck explores every interleaving of, whatever the design. */
    private static List<List<List<Actor>>> freeScenarios(Method put, Method take) {
        List<List<List<Actor>>> scenarios = new ArrayList<>();
        // Two workers wait on an empty handoff; one acceptor hands over two connections.
        scenarios.add(Arrays.asList(List.of(a(take)), List.of(a(take)), List.of(a(put, 1), a(put, 2))));
        // One acceptor hands over three; two workers, one of them twice.
        scenarios.add(Arrays.asList(List.of(a(put, 1), a(put, 2), a(put, 3)), List.of(a(take), a(take)), List.of(a(take))));
        if (!profile.oneAcceptor()) {
            // Two acceptors race; one worker drains. Ids 1 and 4 share a PHT slot of the checks' size 3
            // (same h1), so the two inserts can meet there.
            scenarios.add(Arrays.asList(List.of(a(put, 1)), List.of(a(put, 4)), List.of(a(take), a(take))));
        }
        return scenarios;
    }

    /** The states the profile asks for, each built before its threads race (a window free scenarios rarely open). */
    private static void builtScenarios(Method put, Method take) throws Exception {
        if (profile.sameSlotTakes) {
            // Two connections wait in the table; two workers take at once, both starting at key 3, whose first
            // probe is slot 3 mod m, where connection 3 lies: two workers on one slot inside one claim, every
            // time. Random scenarios and random starts rarely line this up; a claim split in two steps
            // (SplitSwapPht) shows here.
            steered(new int[] {3}, List.of(a(put, 3), a(put, 1)), Arrays.asList(List.of(a(take)), List.of(a(take))));
        }
        if (profile.lappingPut) {
            // The ring starts full (size connections); one worker takes, the acceptor puts one more, which laps
            // the ring into the place the first take frees, and another worker takes the rest. A take that
            // claims its index, then reads the place, can read the lapping put's connection there
            // (ClaimThenReadBuffer): the claim is what gave the acceptor the room. The random scenarios above
            // start with an empty ring, and the acceptor reaches the lap only after many looks of its own.
            List<Actor> fill = new ArrayList<>();
            List<Actor> rest = new ArrayList<>();
            for (int id = 1; id <= profile.size; id++) {
                fill.add(a(put, id));
                rest.add(a(take));
            }
            alone(fill, Arrays.asList(List.of(a(take)), List.of(a(put, profile.size + 1)), rest));
        }
        if (profile.startKeys.length > 0) {
            // Connection 1 waits in slot 1 of 3; one worker starts at key 5 (slots 2, 1, 0) and passes slot 2
            // just before the acceptor puts 2 there; the other starts at key 1 (slots 1, 0, 2) and takes 1;
            // the first then finds slots 1 and 0 empty. A take that gives up after one pass returns null
            // (SinglePassPht); random starts open this window only now and then. Lincheck finds it within 40
            // interleavings (measured: not within 25), so INVOCATIONS keeps a margin of ten.
            steered(profile.startKeys, List.of(a(put, 1)),
                    Arrays.asList(List.of(a(take)), List.of(a(take)), List.of(a(put, 2))));
        }
    }

    /**
     * One scenario with a table's take starts chosen ({@link ProbeStarts#steer}): the first take draws the first
     * key, the next the second, and so on; Lincheck then tries every interleaving of the draws. Lincheck explores
     * interleavings, not the values a random source returns, so a race that only some starts open is found every
     * run only where the check chooses them.
     */
    private static void steered(int[] keys, List<Actor> init, List<List<Actor>> parallel) {
        ProbeStarts.steer(keys);
        alone(init, parallel);
    }

    /** One scenario, with its own init part, in a search of its own (the handoff checks' options). */
    private static void alone(List<Actor> init, List<List<Actor>> parallel) {
        ModelCheckingOptions options = handoffOptions();
        options.addCustomScenario(new ExecutionScenario(init, parallel, List.of(), null));
        options.check(UnderTest.class);
    }

    /** Lincheck's model checker as every handoff check runs it: only the custom scenarios each check adds, against
     *  the counting handoff, with the profile's loops let run to their sleep. */
    private static ModelCheckingOptions handoffOptions() {
        ModelCheckingOptions options = new ModelCheckingOptions()
                .iterations(0)                       // only the custom scenarios
                .invocationsPerIteration(INVOCATIONS)
                .sequentialSpecification(SequentialHandoff.class);
        if (profile.spinLooks > 0) {
            // Lincheck switches threads after 10 turns of a loop and cuts a loop at 50, as a spin; a class that
            // looks spinLooks times before it sleeps would never reach its sleep, its slow path unexplored
            // (LateWaiterBuffer passed with Lincheck's defaults). Measured: spinLooks + 10 finds its lost wake-up.
            options.loopIterationsBeforeThreadSwitch(profile.spinLooks + 10).loopBound(2 * profile.spinLooks + 10);
        }
        return options;
    }

    /** Runs Lincheck's model checker on {@code underTest} and judges its failure, if any, into {@code v}; times it. */
    static Verdict check(Verdict v, ModelCheckingOptions options, Class<?> underTest, String nonLinearizable) {
        long start = System.nanoTime();
        try {
            options.check(underTest);
        } catch (Throwable t) {  // LincheckAssertionError, or Lincheck's own failure
            v.trace = String.valueOf(t.getMessage());
            judge(v, t, nonLinearizable);
        }
        v.stats.put("seconds", (System.nanoTime() - start) / 1e9);
        return v;
    }

    /** Lincheck's failure as a verdict: an outcome no sequential run gives, a hang, or Lincheck's own error. */
    static void judge(Verdict v, Throwable t, String nonLinearizable) {
        String msg = String.valueOf(t.getMessage());
        if (msg.startsWith("Non-determinism found")) {
            // Lincheck's own failure: a replay of the schedule it reported went another way. Its
            // report then lists results that can be valid (seen with `synchronized` around the JDK's
            // ConcurrentSkipListMap), so it is no verdict on the class under test.
            v.verdict = "error";
            v.detail = "Lincheck failed itself (\"Non-determinism found\": replaying its schedule gave another run); "
                    + "no verdict on the class";
        } else if (msg.contains("Invalid execution results")) {
            v.verdict = "violation:Linearizable";
            v.detail = nonLinearizable;
        } else if (msg.contains("has hung") || msg.toLowerCase().contains("deadlock")) {
            v.verdict = "deadlock";
            v.detail = "every thread is blocked and the scenario cannot finish";
        } else {
            v.verdict = "error";
            v.detail = t.getClass().getSimpleName() + ": " + msg.lines().findFirst().orElse("");
        }
    }

    /** Lincheck's search for a class that is not a handoff: 10 random scenarios of 2 threads x 3 operations besides
     *  the custom one each check adds, against {@code sequential}. */
    static ModelCheckingOptions randomScenarios(Class<?> sequential) {
        return new ModelCheckingOptions()
                .iterations(10)
                .threads(2)
                .actorsPerThread(3)
                .invocationsPerIteration(CLASS_INVOCATIONS)
                .sequentialSpecification(sequential);
    }

    static Actor a(Method m, Object... args) {
        return new Actor(m, Arrays.asList(args));
    }
}
