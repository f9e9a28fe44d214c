package handofflab.labs.calendar;

import handofflab.calendar.Event;
import handofflab.calendar.EventFolder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/** A student's slip: a lock per event of its own, made on first use by a plain HashMap's computeIfAbsent, which is a
 *  look and then a put, not one step: two users who reach a fresh event at once can each make, and hold, a lock of their own. */
public final class StudentStore extends EventFolder {
    private final Map<Integer, ReentrantLock> locks = new HashMap<>();

    public StudentStore(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    private ReentrantLock lockOf(int id) {
        return locks.computeIfAbsent(id, k -> new ReentrantLock());  // BUG: HashMap's computeIfAbsent is not atomic
    }

    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        Entry entry = entry(id);
        if (entry == null) {
            return Outcome.DELETED;
        }
        ReentrantLock lock = lockOf(id);
        lock.lock();
        try {
            Event now = entry.event();
            if (now == null) {
                return Outcome.DELETED;
            }
            publish(id, entry, now.with(changes));
            return Outcome.OK;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Outcome delete(int id) throws IOException {
        Entry entry = entry(id);
        if (entry == null) {
            return Outcome.GONE;
        }
        ReentrantLock lock = lockOf(id);
        lock.lock();
        try {
            if (entry.event() == null) {
                return Outcome.GONE;
            }
            unpublish(id, entry);
            return Outcome.OK;
        } finally {
            lock.unlock();
        }
    }
}

