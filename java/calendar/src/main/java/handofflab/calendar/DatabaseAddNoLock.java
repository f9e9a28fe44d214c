package handofflab.calendar;

import handofflab.calendar.EventFolder.Entry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A buggy database for the checkers (specs/CalendarEntities.tla's EntAddNoLock): the add checks
 * the calendar without the calendar's lock. The owner's delete removes the calendar and its events
 * in between; the add then creates its event and writes the calendar's list back, calendar and all.
 */
public class DatabaseAddNoLock extends CalendarDatabase {
    public DatabaseAddNoLock(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public int addEvent(int calendar, Map<String, String> attributes) throws IOException {
        Entry c = calendars.entry(calendar);
        Event seen = c == null ? null : c.event();
        if (seen == null || !ownerLive(seen)) {  // the slip: looked at without the calendar's lock
            return -1;
        }
        Map<String, String> all = new HashMap<>(attributes);
        all.put("calendar", Integer.toString(calendar));
        int id = events.create(all);
        c.lock.lock();
        try {
            calendars.publish(calendar, c, seen.with(Map.of("event." + id, "")));
            return id;
        } finally {
            c.lock.unlock();
        }
    }
}
