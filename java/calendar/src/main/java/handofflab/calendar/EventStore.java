package handofflab.calendar;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * McBride &amp; Ferrell's event store, its locking as specs/CalendarStore.tla models it: a modify
 * locks its event, checks that it still exists (else it is refused: "this event was deleted") and
 * publishes the new version; a delete takes the same lock, the paper's lock on the event's
 * directory, and unpublishes it; a load takes no lock. {@link EventFolder} keeps the events.
 *
 * <p>This file is the answer to the lab "The calendar that forgets": a student copy of the kit
 * (`./lab release`) leaves it out.
 */
public class EventStore extends EventFolder {
    /** Opens (or creates) the store in {@code root}; null: in memory only. See {@link EventFolder}. */
    public EventStore(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    /** The same policy for a collection of other entities, linked from {@code root/collection} ({@link CalendarDatabase}). */
    public EventStore(Path root, String listKind, String collection) throws IOException {
        super(root, listKind, collection);
    }

    // ANCHOR: modify
    /** Changes some attributes of event {@code id}; DELETED if it was deleted (or never was). */
    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        Entry entry = entry(id);
        if (entry == null) {
            return Outcome.DELETED;
        }
        entry.lock.lock();
        try {
            Event now = entry.event();
            if (now == null) {  // deleted while this request waited for the lock: refuse, never re-create
                return Outcome.DELETED;
            }
            publish(id, entry, now.with(changes));
            return Outcome.OK;
        } finally {
            entry.lock.unlock();
        }
    }
    // ANCHOR_END: modify

    /** Deletes event {@code id}; GONE if it was not there. */
    @Override
    public Outcome delete(int id) throws IOException {
        Entry entry = entry(id);
        if (entry == null) {
            return Outcome.GONE;
        }
        entry.lock.lock();
        try {
            if (entry.event() == null) {
                return Outcome.GONE;
            }
            unpublish(id, entry);
            return Outcome.OK;
        } finally {
            entry.lock.unlock();
        }
    }
}
