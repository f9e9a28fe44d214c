package handofflab.calendar;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The same store on SQLite, the database the paper says "already handles concurrent
 * transactions": one row per event, one transaction per request, a pool of connections that
 * the requests borrow ({@link SqlitePool}): like {@link EventStore}, it keeps every committed
 * request when the process is killed, not necessarily on a power cut.
 */
public final class SqliteEvents implements Events {
    private final SqlitePool pool;
    private final AtomicInteger nextId = new AtomicInteger();

    public SqliteEvents(Path file, int connections) throws IOException {
        pool = new SqlitePool(file, connections,
                "CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, date TEXT, time TEXT, name TEXT)");
    }

    private <T> T with(SqlitePool.Work<T> work) throws IOException {
        return pool.with(work);
    }

    /** The table's columns: an attribute that is not one is refused, never dropped without a word. */
    static final java.util.Set<String> COLUMNS = java.util.Set.of("date", "time", "name");

    static void checkColumns(Map<String, String> attributes) {
        for (String a : attributes.keySet()) {
            if (!COLUMNS.contains(a)) {
                throw new IllegalArgumentException("the SQLite table keeps the attributes date, time and name; '" + a
                        + "' is none of them (add a column to SqliteEvents to keep it)");
            }
        }
    }

    @Override
    public int create(Map<String, String> a) throws IOException {
        checkColumns(a);
        int id = nextId.getAndIncrement();
        return with(c -> {
            try (PreparedStatement st = c.prepareStatement("INSERT INTO events (id, date, time, name) VALUES (?, ?, ?, ?)")) {
                st.setInt(1, id);
                st.setString(2, a.get("date"));
                st.setString(3, a.get("time"));
                st.setString(4, a.get("name"));
                st.executeUpdate();
                return id;
            }
        });
    }

    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        checkColumns(changes);
        return with(c -> {  // one UPDATE is one transaction: it applies to a row that exists, or to none
            try (PreparedStatement st = c.prepareStatement(
                    "UPDATE events SET date = coalesce(?, date), time = coalesce(?, time), name = coalesce(?, name) WHERE id = ?")) {
                st.setString(1, changes.get("date"));
                st.setString(2, changes.get("time"));
                st.setString(3, changes.get("name"));
                st.setInt(4, id);
                return st.executeUpdate() == 1 ? Outcome.OK : Outcome.DELETED;
            }
        });
    }

    @Override
    public Outcome delete(int id) throws IOException {
        return with(c -> {
            try (PreparedStatement st = c.prepareStatement("DELETE FROM events WHERE id = ?")) {
                st.setInt(1, id);
                return st.executeUpdate() == 1 ? Outcome.OK : Outcome.GONE;
            }
        });
    }

    @Override
    public Optional<Event> load(int id) throws IOException {
        return with(c -> {
            try (PreparedStatement st = c.prepareStatement("SELECT date, time, name FROM events WHERE id = ?")) {
                st.setInt(1, id);
                try (ResultSet r = st.executeQuery()) {
                    if (!r.next()) {
                        return Optional.<Event>empty();
                    }
                    Map<String, String> a = new TreeMap<>();
                    a.put("date", r.getString(1));
                    a.put("time", r.getString(2));
                    a.put("name", r.getString(3));
                    return Optional.of(new Event(id, a));
                }
            }
        });
    }

    @Override
    public void close() throws IOException {
        pool.close();
    }
}
