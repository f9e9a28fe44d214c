package handofflab.calendar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store keeps the promises of specs/CalendarStore.tla with real threads and real files:
 * every outcome of a concurrent modify, delete and load is one of the paper's six orderings,
 * and a store killed with SIGKILL is reopened with nothing lost and nothing half-written.
 */
class EventStoreTest {
    static final Map<String, String> ORIGINAL = Map.of("date", "2016-04-16", "time", "10:00", "name", "event 62");
    static final Map<String, String> MOVE = Map.of("date", "2016-04-17", "time", "14:00");

    /** A's outcome and what C saw ("original", "moved", "absent") for each of the six orderings. */
    static final Set<String> SIX_ORDERINGS = Set.of(
            "OK/absent",        // A, B, C
            "OK/moved",         // A, C, B
            "DELETED/absent",   // B, A, C and B, C, A
            "OK/original",      // C, A, B
            "DELETED/original"  // C, B, A
    );

    @Test
    void tenThousandConcurrentRequestsEachEndInOneOfTheSixOrderings(@TempDir Path root) throws Exception {
        String kind = "LockFreeList";  // the paper's pick; the lists themselves are Lincheck's (./lab check java)
        EventStore store = new EventStore(root, kind);
        int events = 3_334;  // three requests each: 10 002
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            ids.add(store.create(ORIGINAL));
        }
        Map<Integer, Events.Outcome> a = new ConcurrentHashMap<>(), b = new ConcurrentHashMap<>();
        Map<Integer, String> c = new ConcurrentHashMap<>();
        List<Runnable> requests = new ArrayList<>();
        for (int id : ids) {
            requests.add(() -> a.put(id, unchecked(() -> store.modify(id, MOVE))));
            requests.add(() -> b.put(id, unchecked(() -> store.delete(id))));
            requests.add(() -> c.put(id, seen(store.load(id))));
        }
        Collections.shuffle(requests, new java.util.Random(62));
        ExecutorService pool = Executors.newFixedThreadPool(64);  // the paper's 64 threads
        requests.forEach(pool::execute);
        pool.shutdown();
        assertTrue(pool.awaitTermination(5, TimeUnit.MINUTES), "the requests did not finish");
        Map<String, Integer> seenOrderings = new HashMap<>();
        for (int id : ids) {
            String outcome = a.get(id) + "/" + c.get(id);
            assertTrue(SIX_ORDERINGS.contains(outcome), "event " + id + ": " + outcome + " is none of the six orderings");
            assertEquals(Events.Outcome.OK, b.get(id), "event " + id + ": the one delete must succeed");
            assertEquals(Optional.empty(), store.load(id), "event " + id + " is back after its delete");
            assertFalse(store.listed(id), "event " + id + " is still in the collection list");
            seenOrderings.merge(outcome, 1, Integer::sum);
        }
        try (Stream<Path> links = Files.list(root.resolve("events")); Stream<Path> dirs = Files.list(root.resolve("versions"))) {
            assertEquals(0, links.count(), "links left on disk");
            assertEquals(0, dirs.count(), "versions left on disk");
        }
        System.out.println(kind + ": " + seenOrderings);  // which orderings the scheduler produced, for the curious
    }

    @Test
    void aModifyAfterTheDeleteIsRefusedAndNeverRecreatesTheEvent(@TempDir Path root) throws IOException {
        EventStore store = new EventStore(root, "LazyList");
        int id = store.create(ORIGINAL);
        assertEquals(Events.Outcome.OK, store.delete(id));
        assertEquals(Events.Outcome.DELETED, store.modify(id, MOVE));
        assertEquals(Events.Outcome.GONE, store.delete(id));
        assertEquals(Optional.empty(), store.load(id));
        EventStore reopened = new EventStore(root, "LazyList");
        assertEquals(Optional.empty(), reopened.load(id));
        assertTrue(reopened.create(ORIGINAL) > id, "an id is never given twice, not even after a restart");
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aStoreKilledMidRunIsReopenedWithNothingLostAndNothingHalfWritten(@TempDir Path root) throws Exception {
        Process driver = new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
                CrashDriver.class.getName(), root.toString()).redirectErrorStream(true).start();
        Map<Integer, Integer> committed = new HashMap<>();  // id -> the last version printed
        Set<Integer> deleted = new HashSet<>(), deleting = new HashSet<>();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(driver.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while (lines.size() < 4_000 && (line = out.readLine()) != null) {
                lines.add(line);
                String[] w = line.split(" ");
                switch (w[0]) {
                    case "C": committed.put(Integer.parseInt(w[1]), 0); break;
                    case "M": committed.put(Integer.parseInt(w[1]), Integer.parseInt(w[2])); break;
                    case "d": deleting.add(Integer.parseInt(w[1])); break;
                    case "D": deleted.add(Integer.parseInt(w[1])); break;
                    default: throw new AssertionError("the driver said: " + String.join("\n", lines));
                }
            }
            driver.destroyForcibly();  // SIGKILL, in the middle of whatever the four threads were writing
            assertTrue(driver.waitFor(30, TimeUnit.SECONDS));
        }
        assertEquals(4_000, lines.size(), "the driver stopped early: " + lines);

        EventStore reopened = new EventStore(root, "LazyList");
        for (Map.Entry<Integer, Integer> e : committed.entrySet()) {
            int id = e.getKey();
            Optional<Event> event = reopened.load(id);
            if (deleted.contains(id)) {
                assertEquals(Optional.empty(), event, "event " + id + " was deleted, and is back");
                continue;
            }
            if (event.isEmpty() && deleting.contains(id)) {
                continue;  // its delete was under way when the process died, and got as far as the commit
            }
            assertTrue(event.isPresent(), "event " + id + " was committed at version " + e.getValue() + ", and is lost");
            Map<String, String> got = event.get().attributes;
            assertEquals(got.get("date"), got.get("time"), "event " + id + " is half-written: " + got);
            int version = Integer.parseInt(got.get("date").substring(1));
            assertTrue(version >= e.getValue(), "event " + id + " went back from v" + e.getValue() + " to " + got);
            assertEquals("event", got.get("name"));
        }
        try (Stream<Path> links = Files.list(root.resolve("events")); Stream<Path> dirs = Files.list(root.resolve("versions"))) {
            assertEquals(0, links.filter(p -> p.getFileName().toString().startsWith(".")).count(), "temporary links left");
            assertEquals(Files.list(root.resolve("events")).count(), dirs.count(), "a version without its link is left");
        }
        // How many writes the kill interrupted (unpublished versions, links), and how much had committed.
        System.out.println("killed after " + committed.size() + " events; reopening cleared " + reopened.cleared()
                + " unpublished version(s) or link(s)");
        int fresh = reopened.create(ORIGINAL);
        assertFalse(committed.containsKey(fresh), "id " + fresh + " was given twice");
    }

    @Test
    void aForeignFileInTheStoreIsNamedWithItsFix(@TempDir Path root) throws IOException {
        new EventStore(root, "LazyList");
        Files.writeString(root.resolve("events").resolve("notes.txt"), "mine");
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> new EventStore(root, "LazyList"));
        assertTrue(e.getMessage().contains("notes.txt") && e.getMessage().contains("move it out"), e.getMessage());
    }

    private static String seen(Optional<Event> e) {
        if (e.isEmpty()) {
            return "absent";
        }
        Map<String, String> got = e.get().attributes;
        if (got.equals(ORIGINAL)) {
            return "original";
        }
        Map<String, String> moved = new HashMap<>(ORIGINAL);
        moved.putAll(MOVE);
        return got.equals(moved) ? "moved" : "torn " + got;
    }

    interface IoCall<T> {
        T call() throws IOException;
    }

    private static <T> T unchecked(IoCall<T> call) {
        try {
            return call.call();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
