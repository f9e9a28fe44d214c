package handofflab.checks;

import static handofflab.checks.LincheckCheck.a;

import handofflab.calendar.Event;
import handofflab.calendar.EventFolder;
import handofflab.calendar.Events;
import handofflab.calendar.StoreTrials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * Lincheck's model checker over the calendar store's locking: the kit's {@code EventStore}, a
 * buggy store of the catalog, or a student's (labs/calendar), each kept in memory only (the
 * same policy, no files) so that every interleaving can be tried. Every outcome must be one that
 * the requests give when they run one at a time, in some order: the paper's orderings, checked
 * as linearizability against {@link SequentialCalendar}, a map written apart from any store.
 *
 * <p>Lincheck runs the paper's races only, each followed by a load (random scenarios add minutes
 * and find nothing these miss): a move and a delete of one event at once, where a store that
 * checks before it locks, or deletes without the lock, answers both "done" and still shows the
 * event (specs/CalendarStore.tla's NoResurrection); two deletes at once, both of which must not
 * succeed; the paper's two users changing one event at once, a move and a rename, neither of
 * which may be lost; and a delete and a change by each of two users in opposite orders, where a
 * refused change that keeps the lock hangs the other.
 */
public final class StoreLincheck {
    private static volatile String subject;  // Lincheck builds UnderTest itself: the run sets this first
    static final Map<String, String> FIRST = Map.of("title", "meeting", "date", "d0", "time", "t0");
    /** Interleavings tried of the race on a fresh event's lock (the others: LincheckCheck.CLASS_INVOCATIONS). */
    static final int FRESH_LOCK_INVOCATIONS = 600;
    private static final String NON_LINEARIZABLE = "an outcome no ordering of the requests gives when they run one at"
            + " a time (a deleted event back, a refused move that took effect, or one request told what another did)";

    private StoreLincheck() {
    }

    /** What change {@code what} sets: 1 is a move (the date and the time, two files on disk), 2 a rename. */
    static Map<String, String> change(int what) {
        return what == 1 ? Map.of("date", "d1", "time", "t1") : Map.of("title", "meeting " + what);
    }

    /**
     * The store under test, in memory, holding events 1000 and 1001 (above the small-Integer cache, so that a
     * store locking on its boxed id is seen): Lincheck creates one per interleaving it tries.
     */
    @Param(name = "id", gen = IntGen.class, conf = "1000:1001")
    @Param(name = "what", gen = IntGen.class, conf = "1:2")
    public static final class UnderTest {
        private final Events store;

        public UnderTest() throws Exception {
            store = (Events) Class.forName(subject).getConstructor(Path.class, String.class)
                    .newInstance(null, "LockFreeList");
            if (store instanceof EventFolder) {
                ((EventFolder) store).startIdsAt(StoreTrials.CHECKED_IDS);
            }
            store.create(FIRST);
            store.create(FIRST);
        }

        @Operation
        public String modify(@Param(name = "id") int id, @Param(name = "what") int what) {
            try {
                return store.modify(id, change(what)).name();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Operation
        public String delete(@Param(name = "id") int id) {
            try {
                return store.delete(id).name();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Operation
        public String load(@Param(name = "id") int id) {
            try {
                Optional<Event> e = store.load(id);
                return e.isPresent() ? e.get().attributes.toString() : "absent";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The specification: the requests one at a time, on a map of events 1000 and 1001. */
    public static final class SequentialCalendar {
        private final Map<Integer, Map<String, String>> events = new HashMap<>();

        public SequentialCalendar() {
            events.put(StoreTrials.CHECKED_IDS, new TreeMap<>(FIRST));
            events.put(StoreTrials.CHECKED_IDS + 1, new TreeMap<>(FIRST));
        }

        public String modify(int id, int what) {
            Map<String, String> e = events.get(id);
            if (e == null) {
                return "DELETED";  // the paper's warning: this event was deleted
            }
            e.putAll(change(what));
            return "OK";
        }

        public String delete(int id) {
            return events.remove(id) == null ? "GONE" : "OK";
        }

        public String load(int id) {
            Map<String, String> e = events.get(id);
            return e == null ? "absent" : e.toString();
        }
    }

    /** {@code className}: a class of handofflab.calendar by its simple name, or a submitted one by its full name. */
    public static Verdict run(String className) throws Exception {
        subject = className;
        Verdict v = new Verdict("lincheck", className);
        Method modify = UnderTest.class.getMethod("modify", int.class, int.class);
        Method delete = UnderTest.class.getMethod("delete", int.class);
        Method load = UnderTest.class.getMethod("load", int.class);
        int id = StoreTrials.CHECKED_IDS;  // the first event (a boxed 1000 is a new object each time)
        // The paper's race: user A moves event `id` while user B deletes it; then C loads it. Neither request has
        // touched the event before, so this is also where two users reach a fresh event's lock at once: a store
        // that makes its own lock per event on first use, racily (get, then put, in a HashMap), lets each make
        // and hold a lock of its own. Lincheck needs 150 interleavings to line that up (the kit's samples
        // racy_lock_map and racy_compute_if_absent, measured), so this race gets four times that.
        LincheckCheck.check(v, races(FRESH_LOCK_INVOCATIONS, List.of(
                Arrays.asList(List.of(a(modify, id, 1)), List.of(a(delete, id)))), load, id), UnderTest.class,
                NON_LINEARIZABLE);
        if (!v.verdict.equals("pass")) {
            return v;
        }
        double seconds = (double) v.stats.get("seconds");
        LincheckCheck.check(v, races(LincheckCheck.CLASS_INVOCATIONS, List.of(
                // Two users delete it at once: one is told "done", the other "gone".
                Arrays.asList(List.of(a(delete, id)), List.of(a(delete, id))),
                // The paper's other example: A moves it while B renames it; the event keeps both.
                Arrays.asList(List.of(a(modify, id, 1)), List.of(a(modify, id, 2))),
                // Each user deletes and changes it, in opposite orders: a refused change that keeps
                // the lock (an early return without unlock) hangs the other user's request.
                Arrays.asList(List.of(a(modify, id, 1), a(delete, id)), List.of(a(delete, id), a(modify, id, 2)))),
                load, id), UnderTest.class, NON_LINEARIZABLE);
        v.stats.put("seconds", seconds + (double) v.stats.get("seconds"));
        return v;
    }

    /** Lincheck's model checker on these races only, each followed by a load of event {@code id}. */
    private static ModelCheckingOptions races(int invocations, List<List<List<Actor>>> races, Method load, int id) {
        ModelCheckingOptions options = new ModelCheckingOptions()
                .iterations(0)                       // only the scenarios below
                .invocationsPerIteration(invocations)
                .sequentialSpecification(SequentialCalendar.class);
        for (List<List<Actor>> race : races) {
            options.addCustomScenario(new ExecutionScenario(List.of(), race, List.of(a(load, id)), null));
        }
        return options;
    }
}
