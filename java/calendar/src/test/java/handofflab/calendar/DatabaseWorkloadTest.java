package handofflab.calendar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import handofflab.calendar.Events.Outcome;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The benchmark's database workload and its baseline: SQLite keeps the same promises as the kit's
 * database ({@link Database}), every run of the workload checks what it left, and that check fails a
 * database that loses a request.
 */
class DatabaseWorkloadTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"SQLite", "LazyList"})
    void aUserOwnsACalendarWhoseEventsGoWithTheUser(String store, @TempDir Path dir) throws Exception {
        try (Database db = CalendarBench.openDatabase(store, dir, 4)) {
            int ana = db.createUser("ana");
            int club = db.createGroup("chess club");
            int calendar = Integer.parseInt(db.user(ana).get().attributes.get("calendar"));
            int e = db.addEvent(calendar, Map.of("name", "opening night"));
            assertEquals(Outcome.OK, db.join(club, ana));
            assertEquals(Outcome.OK, db.join(club, ana), "a member who joins again stays one member");
            assertEquals(List.of(e), db.loadCalendar(calendar).get().stream().map(x -> x.id).collect(java.util.stream.Collectors.toList()));
            assertTrue(db.group(club).get().attributes.containsKey("member." + ana));
            assertEquals(Outcome.OK, db.deleteUser(ana));
            assertTrue(db.user(ana).isEmpty());
            assertTrue(db.loadCalendar(calendar).isEmpty(), "the user's calendar goes with the user");
            assertFalse(db.group(club).get().attributes.containsKey("member." + ana), "and the user's memberships");
            assertEquals(Outcome.DELETED, db.join(club, ana), "a join of a deleted user is refused");
            assertEquals(-1, db.addEvent(calendar, Map.of("name", "late")), "so is an event for a deleted calendar");
            assertEquals(Outcome.GONE, db.deleteUser(ana));
            assertEquals(List.of(), db.problems());
            assertEquals(Map.of("users", 0, "groups", 1, "calendars", 1, "events", 0), db.counts());
        }
    }

    /** SQLite's foreign keys forbid an orphan; the check must still see one a connection without them left. */
    @Test
    void sqlitesIntegrityCheckNamesAnOrphanEvent(@TempDir Path dir) throws Exception {
        try (SqliteDatabase db = new SqliteDatabase(dir.resolve("calendar.db"), 2)) {
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("calendar.db"));
                 Statement st = c.createStatement()) {
                st.execute("INSERT INTO events (id, calendar, name) VALUES (7, 99, 'lost')");  // foreign keys are off here
            }
            assertEquals(List.of("event 7 is in no live calendar (an orphan)"), db.problems());
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({"SQLite, pool", "SQLite, spawn", "LazyList, pool", "LazyList, spawn", "LockFreeList, pool"})
    void everyRunOfTheWorkloadLeavesTheDatabaseWholeAndEmpty(String store, String mode) throws Exception {
        double[] s = new double[3];
        assertEquals("ok", CalendarBench.runDatabase(store, mode, 96, 8, s));
        assertTrue(s[0] > 0 && s[1] > 0 && s[2] > 0);
    }

    /** The check can fail: a database whose group deletes do nothing leaves groups behind, and the run says so. */
    @Test
    void aDatabaseThatLosesDeletesFailsTheRun(@TempDir Path dir) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (Database real = new CalendarDatabase(dir, "LazyList"); Database lossy = new LosesGroupDeletes(real)) {
            String status = CalendarBench.runDatabase(lossy, pool, "pool", 64, 4, new double[3]);
            assertTrue(status.startsWith("wrong: left after every delete: {users=0, groups=4"), status);
        } finally {
            pool.shutdown();
        }
    }

    private static final class LosesGroupDeletes implements Database {
        private final Database db;

        LosesGroupDeletes(Database db) {
            this.db = db;
        }

        @Override
        public Outcome deleteGroup(int id) {
            return Outcome.OK;   // told "done"; nothing deleted
        }

        @Override
        public int createUser(String name) throws java.io.IOException {
            return db.createUser(name);
        }

        @Override
        public int createGroup(String name) throws java.io.IOException {
            return db.createGroup(name);
        }

        @Override
        public Outcome join(int group, int user) throws java.io.IOException {
            return db.join(group, user);
        }

        @Override
        public int addEvent(int calendar, Map<String, String> attributes) throws java.io.IOException {
            return db.addEvent(calendar, attributes);
        }

        @Override
        public Outcome deleteUser(int id) throws java.io.IOException {
            return db.deleteUser(id);
        }

        @Override
        public Optional<Event> user(int id) throws java.io.IOException {
            return db.user(id);
        }

        @Override
        public Optional<Event> group(int id) throws java.io.IOException {
            return db.group(id);
        }

        @Override
        public Optional<List<Event>> loadCalendar(int id) throws java.io.IOException {
            return db.loadCalendar(id);
        }

        @Override
        public List<String> problems() throws java.io.IOException {
            return db.problems();
        }

        @Override
        public Map<String, Integer> counts() throws java.io.IOException {
            return db.counts();
        }

        @Override
        public void close() {
        }
    }
}
