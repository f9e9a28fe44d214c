package handofflab.labs.database;

import handofflab.calendar.DatabaseFolders;
import handofflab.calendar.EventFolder.Entry;
import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Lab "The group that lists a deleted user": the locking of McBride &amp; Ferrell's whole database.
 *
 * <p>{@link DatabaseFolders} keeps the users, groups, calendars and events, in memory and on disk,
 * and does every request that touches one entity (a leave, an event's change, a group's delete). Its
 * tools for your three requests: {@code userEntry(id)}, {@code groupEntry(id)} and
 * {@code calendarEntry(id)} (the entity's place: its lock {@code entry.lock}, a ReentrantLock, and
 * its published version {@code entry.event()}, null once deleted; null if no entity ever had that
 * id); {@code isCommitted(entry)} (a user or group that is created and not deleted);
 * {@code publishGroup}, {@code publishCalendar} and {@code unpublishUser} (each one atomic step);
 * {@code createEvent(calendar, attributes)} (an event that is added when its calendar lists it);
 * {@code ownerLive(calendar)} (whether the calendar's owner is live; it reads the owner);
 * {@code leave(group, user)} and {@code deleteCalendar(calendar)} (they take their own locks).
 *
 * <p>This database locks nothing. Run alone, every request does the right thing. Run at once, a join
 * that checked the user can publish the group after the user's delete swept it: the group lists a
 * user who is gone. Make the three requests lock what they look at and change, in the one order
 * (users, groups, calendars, events), so that no reference to a deleted entity is ever left.
 * Keep the package, the class name and the constructor.
 */
public final class StudentDatabase extends DatabaseFolders {
    public StudentDatabase(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    /** Makes user {@code user} a member of group {@code group}; DELETED if either was deleted. */
    @Override
    public Outcome join(int group, int user) throws IOException {
        Entry u = userEntry(user);
        Entry g = groupEntry(group);
        if (u == null || g == null || !isCommitted(u) || !isCommitted(g)) {
            return Outcome.DELETED;  // "this user was deleted"
        }
        publishGroup(group, g, g.event().with(Map.of("member." + user, "")));
        return Outcome.OK;
    }

    /** Deletes user {@code id}, its memberships, its calendar and the calendar's events; GONE if it was not there. */
    @Override
    public Outcome deleteUser(int id) throws IOException {
        Entry u = userEntry(id);
        if (u == null || !isCommitted(u)) {
            return Outcome.GONE;
        }
        int calendar = Integer.parseInt(u.event().attributes.get("calendar"));
        unpublishUser(id, u);  // the commit: from here on the user is gone
        for (int group : groupIds()) {
            leave(group, id);
        }
        deleteCalendar(calendar);
        return Outcome.OK;
    }

    /** Adds an event to calendar {@code calendar}; its id, or -1 if the calendar (or its owner) was deleted. */
    @Override
    public int addEvent(int calendar, Map<String, String> attributes) throws IOException {
        Entry c = calendarEntry(calendar);
        if (c == null || c.event() == null || !ownerLive(c.event())) {
            return -1;
        }
        int id = createEvent(calendar, attributes);
        publishCalendar(calendar, c, c.event().with(Map.of("event." + id, "")));  // the commit: the calendar lists it
        return id;
    }
}
