package handofflab.calendar;

import java.io.IOException;
import java.util.Map;

/**
 * A buggy store: a modify that finds its event deleted writes it anew instead of refusing
 * (specs/CalendarStore.tla's CalRecreate). It locks as it should; the slip is in what it does
 * with what it finds: a user told "deleted" sees the event come back.
 */
public final class StoreRecreate extends EventStore {
    public StoreRecreate(java.nio.file.Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        Entry entry = entry(id);
        if (entry == null) {
            return Outcome.DELETED;
        }
        entry.lock.lock();
        try {
            Event now = entry.event();
            Event base = now != null ? now : new Event(id, Map.of());  // the slip: re-create, never refuse
            publish(id, entry, base.with(changes));
            return Outcome.OK;
        } finally {
            entry.lock.unlock();
        }
    }
}
