package handofflab.labs.calendar;

import handofflab.calendar.Event;
import handofflab.calendar.EventFolder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** Checks that the event exists, then locks: a delete in between is undone. */
public final class StudentStore extends EventFolder {
    public StudentStore(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        Entry entry = entry(id);
        Event now = entry == null ? null : entry.event();
        if (now == null) {
            return Outcome.DELETED;
        }
        entry.lock.lock();
        try {
            publish(id, entry, now.with(changes));
            return Outcome.OK;
        } finally {
            entry.lock.unlock();
        }
    }

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
