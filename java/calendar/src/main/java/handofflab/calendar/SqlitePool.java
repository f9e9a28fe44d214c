package handofflab.calendar;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The connections that {@link SqliteEvents} and {@link SqliteDatabase} lend their requests: WAL journal with
 * synchronous=NORMAL (every committed request survives a killed process, not necessarily a power cut), writers
 * waiting their turn, foreign keys on, and one request at a time on each connection.
 */
final class SqlitePool implements AutoCloseable {
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private final BlockingQueue<Connection> pool;

    /** Opens {@code connections} connections to {@code file}, the first creating the {@code schema}'s tables. */
    SqlitePool(Path file, int connections, String... schema) throws IOException {
        pool = new ArrayBlockingQueue<>(connections);
        try {
            for (int i = 0; i < connections; i++) {
                Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                try (Statement st = c.createStatement()) {
                    st.execute("PRAGMA journal_mode=WAL");
                    st.execute("PRAGMA synchronous=NORMAL");
                    st.execute("PRAGMA busy_timeout=60000");  // one writer at a time: the others wait their turn
                    st.execute("PRAGMA foreign_keys=ON");     // per connection: SQLite's default is off
                    for (String statement : i == 0 ? schema : new String[0]) {
                        st.execute(statement);
                    }
                }
                pool.add(c);
            }
        } catch (SQLException e) {
            throw new IOException("SQLite could not open " + file + ": " + e.getMessage(), e);
        }
    }

    /** One request on a borrowed connection, as one statement's own transaction (autocommit). */
    <T> T with(Work<T> work) throws IOException {
        return with(false, work);
    }

    /** One request on a borrowed connection; {@code transaction}: in one transaction that holds the write lock from
     *  its start (BEGIN IMMEDIATE), so that two requests never both read and then both wait to write. */
    <T> T with(boolean transaction, Work<T> work) throws IOException {
        Connection c;
        try {
            c = pool.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a connection", e);
        }
        try (Statement st = c.createStatement()) {
            if (!transaction) {
                return work.run(c);
            }
            st.execute("BEGIN IMMEDIATE");
            try {
                T result = work.run(c);
                st.execute("COMMIT");
                return result;
            } catch (SQLException | RuntimeException e) {
                st.execute("ROLLBACK");
                throw e;
            }
        } catch (SQLException e) {
            throw new IOException("SQLite: " + e.getMessage(), e);
        } finally {
            pool.add(c);
        }
    }

    @Override
    public void close() throws IOException {
        for (Connection c : pool) {
            try {
                c.close();
            } catch (SQLException e) {
                throw new IOException("SQLite: " + e.getMessage(), e);
            }
        }
    }
}
