package handofflab.calendar;

import java.io.IOException;

/**
 * A buggy store: a delete takes no lock (the paper's lock on the event's directory is left out).
 * It can remove the event while a move that already checked it is writing its new version; the
 * move then publishes it again (specs/CalendarStore.tla's CalDeleteNoLock).
 */
public final class StoreDeleteNoLock extends EventStore {
    public StoreDeleteNoLock(java.nio.file.Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public Outcome delete(int id) throws IOException {
        Entry entry = entry(id);
        if (entry == null || entry.event() == null) {
            return Outcome.GONE;
        }
        unpublish(id, entry);  // the slip: no lock around the check and the removal
        return Outcome.OK;
    }
}
