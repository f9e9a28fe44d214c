package handofflab.labs.database;

import handofflab.calendar.DatabaseFolders;
import handofflab.calendar.EventFolder.Entry;
import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** A join of a deleted user returns holding the user's lock (no finally): the next request on that user, in another thread, waits for ever. */
public final class StudentDatabase extends DatabaseFolders {
    public StudentDatabase(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public Outcome join(int group, int user) throws IOException {
        Entry u = userEntry(user);
        Entry g = groupEntry(group);
        if (u == null || g == null) {
            return Outcome.DELETED;
        }
        u.lock.lock();
        if (!isCommitted(u)) {
            return Outcome.DELETED;  // returns holding the user's lock: no finally
        }
        try {
            g.lock.lock();
            try {
                if (!isCommitted(g)) {
                    return Outcome.DELETED;
                }
                publishGroup(group, g, g.event().with(Map.of("member." + user, "")));
                return Outcome.OK;
            } finally {
                g.lock.unlock();
            }
        } finally {
            u.lock.unlock();
        }
    }

    @Override
    public Outcome deleteUser(int id) throws IOException {
        Entry u = userEntry(id);
        if (u == null) {
            return Outcome.GONE;
        }
        int calendar;
        u.lock.lock();
        try {
            if (!isCommitted(u)) {
                return Outcome.GONE;
            }
            calendar = Integer.parseInt(u.event().attributes.get("calendar"));
            unpublishUser(id, u);  // the commit
        } finally {
            u.lock.unlock();
        }
        for (int group : groupIds()) {
            leave(group, id);
        }
        deleteCalendar(calendar);
        return Outcome.OK;
    }

    @Override
    public int addEvent(int calendar, Map<String, String> attributes) throws IOException {
        Entry c = calendarEntry(calendar);
        if (c == null) {
            return -1;
        }
        c.lock.lock();
        try {
            if (c.event() == null || !ownerLive(c.event())) {
                return -1;
            }
            int id = createEvent(calendar, attributes);
            publishCalendar(calendar, c, c.event().with(Map.of("event." + id, "")));  // the commit
            return id;
        } finally {
            c.lock.unlock();
        }
    }
}
