package handofflab.calendar;

import handofflab.calendar.EventFolder.Entry;
import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A buggy database for the checkers (specs/CalendarEntities.tla's EntDeleteGroupFirst): a user's
 * delete locks the groups before the user, to sweep the memberships before it commits. That is
 * against the one lock order: a join holds the user and waits for the group, the delete holds the
 * group and waits for the user, and both wait for ever.
 */
public class DatabaseDeleteGroupFirst extends CalendarDatabase {
    public DatabaseDeleteGroupFirst(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public Outcome deleteUser(int id) throws IOException {
        Entry u = users.entry(id);
        if (u == null) {
            return Outcome.GONE;
        }
        List<Entry> held = new ArrayList<>();
        try {
            for (int group : groups.ids()) {  // the slip: the groups first
                Entry g = groups.entry(group);
                g.lock.lock();
                held.add(g);
            }
            u.lock.lock();
            try {
                if (!isCommitted(u)) {
                    return Outcome.GONE;
                }
                for (int group : groups.ids()) {
                    Entry g = groups.entry(group);
                    if (g.event() != null && g.event().attributes.containsKey("member." + id)) {
                        groups.publish(group, g, g.event().without("member." + id));
                    }
                }
                int calendar = Integer.parseInt(u.event().attributes.get("calendar"));
                users.unpublish(id, u);
                deleteCalendar(calendar);
                return Outcome.OK;
            } finally {
                u.lock.unlock();
            }
        } finally {
            held.forEach(g -> g.lock.unlock());
        }
    }
}
