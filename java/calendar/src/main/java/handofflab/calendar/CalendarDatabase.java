package handofflab.calendar;

import handofflab.calendar.EventFolder.Entry;
import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The kit's policy for McBride &amp; Ferrell's whole database ({@link DatabaseFolders} is the mechanism): the three
 * requests that span entities, as specs/CalendarEntities.tla models them, and the database lab's answer.
 *
 * <p>Each takes its locks in the one order (users, groups, calendars, events) and looks at an entity only while
 * it holds that entity's lock. A join locks the user and then the group: a user deleted meanwhile is refused
 * ("this user was deleted"), never made a member. A user's delete commits under the user's lock, then sweeps
 * the memberships and the calendar, each under its own lock. An event is added under its calendar's lock.
 */
public class CalendarDatabase extends DatabaseFolders {
    /** Opens (or creates) the database in {@code root}; null: in memory only. Repairs what a killed process left. */
    public CalendarDatabase(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    /** Makes user {@code user} a member of group {@code group}; DELETED if either was deleted. */
    // ANCHOR: join
    @Override
    public Outcome join(int group, int user) throws IOException {
        Entry u = userEntry(user);
        Entry g = groupEntry(group);
        if (u == null || g == null) {
            return Outcome.DELETED;
        }
        u.lock.lock();  // users before groups: the order every request takes its locks in
        try {
            if (!isCommitted(u)) {
                return Outcome.DELETED;  // "this user was deleted": a delete that committed first wins
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
    // ANCHOR_END: join

    // ANCHOR: deleteUser
    /** Deletes user {@code id}: its memberships, its calendar and the calendar's events go with it. */
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
            unpublishUser(id, u);  // commit
        } finally {
            u.lock.unlock();
        }
        // Committed. No join can add the user from now on (a join checks the user under its lock), and
        // every join that did has published its group before it unlocked the user: this scan sees them all.
        for (int group : groupIds()) {
            leave(group, id);
        }
        deleteCalendar(calendar);
        return Outcome.OK;
    }
    // ANCHOR_END: deleteUser

    // ANCHOR: addEvent
    /** Adds an event to calendar {@code calendar}; returns its id, or -1 if the calendar (or its owner) was deleted. */
    @Override
    public int addEvent(int calendar, Map<String, String> attributes) throws IOException {
        Entry c = calendarEntry(calendar);
        if (c == null) {
            return -1;
        }
        c.lock.lock();
        try {
            // The owner's delete commits before it locks the calendar; an owner seen live here is deleted
            // after this request, and its delete, which takes this lock next, removes this event too.
            if (c.event() == null || !ownerLive(c.event())) {
                return -1;
            }
            int id = createEvent(calendar, attributes);  // not added until its calendar lists it
            publishCalendar(calendar, c, c.event().with(Map.of("event." + id, "")));  // commit
            return id;
        } finally {
            c.lock.unlock();
        }
    }
    // ANCHOR_END: addEvent
}
