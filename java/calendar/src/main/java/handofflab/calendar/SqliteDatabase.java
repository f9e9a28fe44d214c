package handofflab.calendar;

import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The calendar's whole database on SQLite, the baseline for {@link CalendarDatabase}: one table per
 * collection and one for memberships, foreign keys that cascade a delete (a user's memberships, a
 * calendar's events), one transaction per request, and a pool of connections the requests borrow
 * ({@link SqlitePool}, as {@link SqliteEvents}).
 */
public final class SqliteDatabase implements Database {
    private static final String[] SCHEMA = {
        "CREATE TABLE IF NOT EXISTS calendars (id INTEGER PRIMARY KEY, owner TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT, calendar INTEGER NOT NULL REFERENCES calendars(id))",
        "CREATE TABLE IF NOT EXISTS groups (id INTEGER PRIMARY KEY, name TEXT, calendar INTEGER NOT NULL REFERENCES calendars(id))",
        "CREATE TABLE IF NOT EXISTS members (grp INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,"
            + " usr INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE, PRIMARY KEY (grp, usr))",
        "CREATE INDEX IF NOT EXISTS members_by_user ON members (usr)",
        "CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, calendar INTEGER NOT NULL REFERENCES calendars(id)"
            + " ON DELETE CASCADE, date TEXT, time TEXT, name TEXT)",
        "CREATE INDEX IF NOT EXISTS events_by_calendar ON events (calendar)",
    };
    private final SqlitePool pool;
    private final AtomicInteger nextUser = new AtomicInteger(), nextGroup = new AtomicInteger(),
            nextCalendar = new AtomicInteger(), nextEvent = new AtomicInteger();

    public SqliteDatabase(Path file, int connections) throws IOException {
        pool = new SqlitePool(file, connections, SCHEMA);
    }

    private <T> T with(boolean transaction, SqlitePool.Work<T> work) throws IOException {
        return pool.with(transaction, work);
    }

    private static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement st = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                st.setObject(i + 1, args[i]);
            }
            return st.executeUpdate();
        }
    }

    private static List<Map<String, String>> query(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement st = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                st.setObject(i + 1, args[i]);
            }
            List<Map<String, String>> rows = new ArrayList<>();
            try (ResultSet r = st.executeQuery()) {
                while (r.next()) {
                    Map<String, String> row = new TreeMap<>();
                    for (int k = 1; k <= r.getMetaData().getColumnCount(); k++) {
                        row.put(r.getMetaData().getColumnLabel(k), r.getString(k));
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }

    @Override
    public int createUser(String name) throws IOException {
        return createOwner("users", "user", nextUser.getAndIncrement(), name);
    }

    @Override
    public int createGroup(String name) throws IOException {
        return createOwner("groups", "group", nextGroup.getAndIncrement(), name);
    }

    private int createOwner(String table, String kind, int id, String name) throws IOException {
        int calendar = nextCalendar.getAndIncrement();
        return with(true, c -> {
            update(c, "INSERT INTO calendars (id, owner) VALUES (?, ?)", calendar, kind + ":" + id);
            update(c, "INSERT INTO " + table + " (id, name, calendar) VALUES (?, ?, ?)", id, name, calendar);
            return id;
        });
    }

    @Override
    public Outcome join(int group, int user) throws IOException {
        return with(true, c -> {
            update(c, "INSERT OR IGNORE INTO members (grp, usr) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM groups WHERE id = ?)"
                    + " AND EXISTS (SELECT 1 FROM users WHERE id = ?)", group, user, group, user);
            boolean member = !query(c, "SELECT 1 FROM members WHERE grp = ? AND usr = ?", group, user).isEmpty();
            return member ? Outcome.OK : Outcome.DELETED;   // a second join of a member is OK, as the kit's
        });
    }

    @Override
    public int addEvent(int calendar, Map<String, String> a) throws IOException {
        SqliteEvents.checkColumns(a);
        int id = nextEvent.getAndIncrement();
        return with(true, c -> update(c, "INSERT INTO events (id, calendar, date, time, name) SELECT ?, ?, ?, ?, ? WHERE EXISTS"
                + " (SELECT 1 FROM calendars WHERE id = ?)", id, calendar, a.get("date"), a.get("time"), a.get("name"), calendar)
                == 1 ? id : -1);
    }

    @Override
    public Outcome deleteUser(int id) throws IOException {
        return deleteOwner("users", id);
    }

    @Override
    public Outcome deleteGroup(int id) throws IOException {
        return deleteOwner("groups", id);
    }

    /** The owner's row (its memberships cascade), then its calendar (its events cascade), in one transaction. */
    private Outcome deleteOwner(String table, int id) throws IOException {
        return with(true, c -> {
            List<Map<String, String>> owner = query(c, "SELECT calendar FROM " + table + " WHERE id = ?", id);
            if (owner.isEmpty()) {
                return Outcome.GONE;
            }
            update(c, "DELETE FROM " + table + " WHERE id = ?", id);
            update(c, "DELETE FROM calendars WHERE id = ?", Integer.parseInt(owner.get(0).get("calendar")));
            return Outcome.OK;
        });
    }

    @Override
    public Optional<Event> user(int id) throws IOException {
        return with(false, c -> query(c, "SELECT name, calendar FROM users WHERE id = ?", id).stream().findFirst()
                .map(row -> new Event(id, row)));
    }

    @Override
    public Optional<Event> group(int id) throws IOException {
        return with(false, c -> {
            List<Map<String, String>> rows = query(c, "SELECT name, calendar FROM groups WHERE id = ?", id);
            if (rows.isEmpty()) {
                return Optional.<Event>empty();
            }
            Map<String, String> a = new TreeMap<>(rows.get(0));
            for (Map<String, String> m : query(c, "SELECT usr FROM members WHERE grp = ?", id)) {
                a.put("member." + m.get("usr"), "");
            }
            return Optional.of(new Event(id, a));
        });
    }

    @Override
    public Optional<List<Event>> loadCalendar(int id) throws IOException {
        return with(false, c -> {
            if (query(c, "SELECT 1 FROM calendars WHERE id = ?", id).isEmpty()) {
                return Optional.<List<Event>>empty();
            }
            List<Event> events = new ArrayList<>();
            for (Map<String, String> row : query(c, "SELECT id, date, time, name FROM events WHERE calendar = ? ORDER BY id", id)) {
                Map<String, String> a = new TreeMap<>(row);
                int event = Integer.parseInt(a.remove("id"));
                a.put("calendar", Integer.toString(id));
                events.add(new Event(event, a));
            }
            return Optional.of(events);
        });
    }

    /** The same integrity as {@link CalendarDatabase#problems}, asked of the tables. */
    @Override
    public List<String> problems() throws IOException {
        return with(false, c -> {
            List<String> wrong = new ArrayList<>();
            for (String kind : List.of("user", "group")) {
                for (Map<String, String> r : query(c, "SELECT o.id AS id, o.calendar AS calendar FROM " + kind + "s o LEFT JOIN"
                        + " calendars k ON k.id = o.calendar AND k.owner = '" + kind + ":' || o.id WHERE k.id IS NULL")) {
                    wrong.add(kind + " " + r.get("id") + " names calendar " + r.get("calendar") + ", which is deleted or not its own");
                }
            }
            for (Map<String, String> r : query(c, "SELECT k.id AS id, k.owner AS owner FROM calendars k WHERE NOT EXISTS"
                    + " (SELECT 1 FROM users u WHERE 'user:' || u.id = k.owner AND u.calendar = k.id) AND NOT EXISTS"
                    + " (SELECT 1 FROM groups g WHERE 'group:' || g.id = k.owner AND g.calendar = k.id)")) {
                wrong.add("calendar " + r.get("id") + " outlives its owner " + r.get("owner"));
            }
            for (Map<String, String> r : query(c, "SELECT grp, usr FROM members m WHERE NOT EXISTS (SELECT 1 FROM users u"
                    + " WHERE u.id = m.usr) OR NOT EXISTS (SELECT 1 FROM groups g WHERE g.id = m.grp)")) {
                wrong.add("group " + r.get("grp") + " lists member " + r.get("usr") + ", a user or group that was deleted");
            }
            for (Map<String, String> r : query(c, "SELECT id FROM events e WHERE NOT EXISTS (SELECT 1 FROM calendars k"
                    + " WHERE k.id = e.calendar)")) {
                wrong.add("event " + r.get("id") + " is in no live calendar (an orphan)");
            }
            return wrong;
        });
    }

    @Override
    public Map<String, Integer> counts() throws IOException {
        return with(false, c -> {
            Map<String, Integer> n = new LinkedHashMap<>();
            for (String table : List.of("users", "groups", "calendars", "events")) {
                n.put(table, Integer.parseInt(query(c, "SELECT count(*) AS n FROM " + table).get(0).get("n")));
            }
            return n;
        });
    }

    @Override
    public void close() throws IOException {
        pool.close();
    }
}
