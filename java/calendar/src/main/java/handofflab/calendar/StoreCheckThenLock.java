package handofflab.calendar;

import java.io.IOException;
import java.util.Map;

/**
 * A buggy store: a modify checks that its event exists, then takes the lock. A delete that runs
 * between the two is undone: the move publishes the event again, and both users were told "done"
 * (specs/CalendarStore.tla's CalCheckThenLock).
 */
public final class StoreCheckThenLock extends EventStore {
    public StoreCheckThenLock(java.nio.file.Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        Entry entry = entry(id);
        Event now = entry == null ? null : entry.event();
        if (now == null) {  // the slip: checked before the lock, trusted after it
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
}
