package handofflab.calendar;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * What a calendar store does for its users, whoever keeps the events: the kit's {@link EventStore}
 * or a real database ({@link SqliteEvents}). Each request takes effect once, in some order.
 */
public interface Events extends AutoCloseable {
    /** Why a request did not take effect. */
    enum Outcome { OK, DELETED, GONE }

    /** Creates an event; returns its id. */
    int create(Map<String, String> attributes) throws IOException;

    /** Changes some attributes of event {@code id}; DELETED if it was deleted (or never was). */
    Outcome modify(int id, Map<String, String> changes) throws IOException;

    /** Deletes event {@code id}; GONE if it was not there. */
    Outcome delete(int id) throws IOException;

    /** Event {@code id} as last committed, if it exists. */
    Optional<Event> load(int id) throws IOException;

    @Override
    default void close() throws IOException {
    }
}
