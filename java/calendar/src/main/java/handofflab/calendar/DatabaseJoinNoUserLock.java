package handofflab.calendar;

import handofflab.calendar.EventFolder.Entry;
import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A buggy database for the checkers (specs/CalendarEntities.tla's EntJoinNoUserLock): the join
 * checks that the user is there without the user's lock. A delete that commits and sweeps the
 * group in between leaves the group listing a deleted user.
 */
public class DatabaseJoinNoUserLock extends CalendarDatabase {
    public DatabaseJoinNoUserLock(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public Outcome join(int group, int user) throws IOException {
        Entry u = users.entry(user);
        Entry g = groups.entry(group);
        if (u == null || g == null || !isCommitted(u)) {  // the slip: looked at without the user's lock
            return Outcome.DELETED;
        }
        g.lock.lock();
        try {
            if (!isCommitted(g)) {
                return Outcome.DELETED;
            }
            groups.publish(group, g, g.event().with(Map.of("member." + user, "")));
            return Outcome.OK;
        } finally {
            g.lock.unlock();
        }
    }
}
