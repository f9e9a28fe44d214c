package handofflab.labs.calendar;

import handofflab.calendar.Event;
import handofflab.calendar.EventFolder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** A student's slip: it locks on the boxed id. Below 128 every boxing of an id is one cached Integer, so it looks right; above, each call boxes a new object and locks nothing. */
public final class StudentStore extends EventFolder {
    public StudentStore(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        Entry entry = entry(id);
        if (entry == null) {
            return Outcome.DELETED;
        }
        synchronized (Integer.valueOf(id)) {  // BUG: one lock per id only inside the Integer cache
            Event now = entry.event();
            if (now == null) {
                return Outcome.DELETED;
            }
            publish(id, entry, now.with(changes));
            return Outcome.OK;
        }
    }

    @Override
    public Outcome delete(int id) throws IOException {
        Entry entry = entry(id);
        if (entry == null) {
            return Outcome.GONE;
        }
        synchronized (Integer.valueOf(id)) {  // BUG: one lock per id only inside the Integer cache
            if (entry.event() == null) {
                return Outcome.GONE;
            }
            unpublish(id, entry);
            return Outcome.OK;
        }
    }
}
