package handofflab.labs.calendar;

import handofflab.calendar.Event;
import handofflab.calendar.EventFolder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Lab "The calendar that forgets": the locking of McBride &amp; Ferrell's event store.
 *
 * <p>{@link EventFolder} keeps the events, in memory and on disk, and gives you four tools:
 * {@code entry(id)} (the event's place in the store: its lock {@code entry.lock}, a
 * ReentrantLock, and its published version {@code entry.event()}, null once deleted; null if
 * no event ever had that id), {@code publish(id, entry, event)} (writes a new version and
 * publishes it in one step), and {@code unpublish(id, entry)} (deletes it in one step). A load
 * takes no lock: it reads the published version.
 *
 * <p>This store locks nothing. Run alone, every request does the right thing. Run at once, a
 * move that checked the event can publish it again after a delete removed it: the user was told
 * "deleted", and the event is back. Make {@link #modify} and {@link #delete} take the event's
 * lock so that every outcome is one that the requests give when they run one at a time.
 * Keep the package, the class name and the constructor.
 */
public final class StudentStore extends EventFolder {
    public StudentStore(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    /** Changes some attributes of event {@code id}; DELETED if it was deleted (or never was). */
    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        Entry entry = entry(id);
        if (entry == null) {
            return Outcome.DELETED;
        }
        Event now = entry.event();
        if (now == null) {
            return Outcome.DELETED;  // the paper's warning: this event was deleted
        }
        publish(id, entry, now.with(changes));
        return Outcome.OK;
    }

    /** Deletes event {@code id}; GONE if it was not there. */
    @Override
    public Outcome delete(int id) throws IOException {
        Entry entry = entry(id);
        if (entry == null || entry.event() == null) {
            return Outcome.GONE;
        }
        unpublish(id, entry);
        return Outcome.OK;
    }
}
