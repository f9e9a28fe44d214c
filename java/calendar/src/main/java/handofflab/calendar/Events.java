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

    /** The paper's choice for a user told "this event was deleted": clone the event with the changes, or abandon them. */
    enum IfDeleted { CLONE, ABANDON }

    /**
     * A user's edit of the event {@code seen} (as they loaded it): a {@link #modify} of its id; if the
     * event was deleted meanwhile, the user's {@code choice}. CLONE creates a new event, with a new id,
     * from the version the user was editing plus the changes; the deleted event stays deleted (its id
     * is never given again). Returns the id that holds the changes now: {@code seen.id}, the clone's,
     * or -1 when they were abandoned.
     */
    default int edit(Event seen, Map<String, String> changes, IfDeleted choice) throws IOException {
        if (modify(seen.id, changes) == Outcome.OK) {
            return seen.id;
        }
        return choice == IfDeleted.CLONE ? create(seen.with(changes).attributes) : -1;
    }

    @Override
    default void close() throws IOException {
    }
}
