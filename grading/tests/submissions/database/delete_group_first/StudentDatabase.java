package handofflab.labs.database;

import handofflab.calendar.DatabaseFolders;
import handofflab.calendar.EventFolder.Entry;
import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** The user's delete locks every group before the user, against the one order: beside a join, each waits for the other. */
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
        u.lock.lock();  // users before groups
        try {
            if (!isCommitted(u)) {
                return Outcome.DELETED;
            }
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
        java.util.List<Entry> held = new java.util.ArrayList<>();
        try {
            for (int group : groupIds()) {  // the groups before the user: against the one order
                Entry g = groupEntry(group);
                g.lock.lock();
                held.add(g);
            }
            u.lock.lock();
            try {
                if (!isCommitted(u)) {
                    return Outcome.GONE;
                }
                for (int group : groupIds()) {
                    Entry g = groupEntry(group);
                    if (g.event() != null && g.event().attributes.containsKey("member." + id)) {
                        publishGroup(group, g, g.event().without("member." + id));
                    }
                }
                int calendar = Integer.parseInt(u.event().attributes.get("calendar"));
                unpublishUser(id, u);
                deleteCalendar(calendar);
                return Outcome.OK;
            } finally {
                u.lock.unlock();
            }
        } finally {
            for (Entry g : held) {
                g.lock.unlock();
            }
        }
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
