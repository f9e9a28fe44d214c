package handofflab.labs.calendar;

import handofflab.calendar.Event;
import handofflab.calendar.EventFolder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/** A student's slip: a lock per event of its own, made on first use by get-then-put in a plain HashMap. Two users
 *  who reach a fresh event at once can each make, and hold, a lock of their own (issue 68). */
public final class StudentStore extends EventFolder {
    private final Map<Integer, ReentrantLock> locks = new HashMap<>();

    public StudentStore(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    private ReentrantLock lockOf(int id) {
        ReentrantLock lock = locks.get(id);  // BUG: get, then put, with nothing between two users
        if (lock == null) {
            lock = new ReentrantLock();
            locks.put(id, lock);
        }
        return lock;
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
