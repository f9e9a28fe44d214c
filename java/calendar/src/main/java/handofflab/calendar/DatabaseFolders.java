package handofflab.calendar;

import handofflab.calendar.EventFolder.Entry;
import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The mechanism of McBride &amp; Ferrell's whole database: four collections (users, calendars, groups,
 * events), each one directory per entity and one file per attribute ({@link EventStore}), the requests
 * that touch one entity at a time, and the repair of a killed process. Its three requests that span
 * entities are the policy, left to a subclass: {@link #join}, {@link #deleteUser} and {@link #addEvent}
 * ({@link CalendarDatabase} is the kit's, the database lab's {@code StudentDatabase} a student's). This
 * is {@link EventFolder}'s split again, one level up: the mechanism keeps the entities, the policy
 * decides which locks a request holds when it looks and when it commits.
 *
 * <p>A user and a group each own a calendar; a calendar lists its events ({@code event.ID}, one file
 * per reference, as the paper found best); a group lists its members ({@code member.ID}); an event
 * names its calendar.
 *
 * <p><b>Locks.</b> Every change locks the entities it changes, and a request that locks more than
 * one takes them in one order: users, then groups, then calendars, then events (so two requests
 * never wait for each other in a cycle). The requests here keep that order; so must a policy's.
 *
 * <p><b>Commit points.</b> Each request commits in one atomic publish or unpublish of one entity
 * ({@link EventFolder}): a new user when it names its calendar, an added event when its calendar
 * lists it, a deleted user or group when its own link goes, a deleted event when its link goes.
 * The rest of a delete (the memberships, the calendar and its events) follows the commit, each
 * step under its entity's lock. So after a kill -9 at any instant, opening the folder again
 * {@linkplain DatabaseIntegrity#repair repairs} what the commits decide: it removes a creation that did not commit,
 * finishes a delete that did, and then every reference points at a live entity.
 */
// Every public method but the three requests of the policy is final, so that a submitted database (the database
// lab's) cannot answer for the state it is judged on: the checkers read it through these (problems, user, group).
public abstract class DatabaseFolders implements Database {
    final EventStore users;
    final EventStore groups;
    final EventStore calendars;
    final EventStore events;
    /** The rule the references keep: checked by {@link #problems}, restored on opening. */
    private final DatabaseIntegrity integrity;
    /** How many entities and references opening the database removed or dropped (its repair). */
    private final int repaired;

    /** Opens (or creates) the database in {@code root}; null: in memory only. Repairs what a killed process left. */
    protected DatabaseFolders(Path root, String listKind) throws IOException {
        users = new EventStore(root == null ? null : root.resolve("users"), listKind, "users");
        groups = new EventStore(root == null ? null : root.resolve("groups"), listKind, "groups");
        calendars = new EventStore(root == null ? null : root.resolve("calendars"), listKind, "calendars");
        events = new EventStore(root == null ? null : root.resolve("events"), listKind, "events");
        integrity = new DatabaseIntegrity(users, groups, calendars, events);
        repaired = integrity.repair();
    }

    // --- the policy: the three requests that span entities ---------------------------------------

    /**
     * Makes user {@code user} a member of group {@code group}; DELETED if either was deleted. A user deleted
     * meanwhile is refused ("this user was deleted"), never made a member: no group may list a deleted user.
     */
    @Override
    public abstract Outcome join(int group, int user) throws IOException;

    /**
     * Deletes user {@code id} (GONE if it was not there): its memberships, its calendar and the calendar's
     * events go with it, and no join or added event may bring a reference to it back.
     */
    @Override
    public abstract Outcome deleteUser(int id) throws IOException;

    /**
     * Adds an event to calendar {@code calendar}; returns its id, or -1 if the calendar (or its owner) was
     * deleted. An event is never left in a calendar that is gone.
     */
    @Override
    public abstract int addEvent(int calendar, Map<String, String> attributes) throws IOException;

    // --- the policy's tools ------------------------------------------------------------------------

    /** User {@code id}'s place: its lock ({@code lock}) and its published version ({@code event()}, null once deleted); null if no user had that id. */
    protected final Entry userEntry(int id) {
        return users.entry(id);
    }

    /** Group {@code id}'s place, as {@link #userEntry}; its version lists a {@code member.ID} per member. */
    protected final Entry groupEntry(int id) {
        return groups.entry(id);
    }

    /** Calendar {@code id}'s place, as {@link #userEntry}; its version lists an {@code event.ID} per event, and its {@code owner}. */
    protected final Entry calendarEntry(int id) {
        return calendars.entry(id);
    }

    /** Every group id ever given, ascending; a deleted group's entry has no version ({@code event()} is null). */
    protected final List<Integer> groupIds() {
        return groups.ids();
    }

    /** Publishes {@code now} as group {@code id}'s version in one step. Hold the group's lock. */
    protected final void publishGroup(int id, Entry group, Event now) throws IOException {
        groups.publish(id, group, now);
    }

    /** Publishes {@code now} as calendar {@code id}'s version in one step: an event is added when its calendar lists it. Hold the calendar's lock. */
    protected final void publishCalendar(int id, Entry calendar, Event now) throws IOException {
        calendars.publish(id, calendar, now);
    }

    /** Deletes user {@code id} in one step: the commit of its delete. Hold the user's lock; then sweep the rest. */
    protected final void unpublishUser(int id, Entry user) throws IOException {
        users.unpublish(id, user);
    }

    /**
     * Creates an event of calendar {@code calendar} with these attributes (not {@code calendar}: that is the one
     * it is added to) and returns its id. It is not added until its calendar lists it ({@link #publishCalendar}):
     * until then, a kill leaves it for the repair to remove.
     */
    protected final int createEvent(int calendar, Map<String, String> attributes) throws IOException {
        if (attributes.containsKey("calendar")) {
            throw new IllegalArgumentException("an event's calendar is the one it is added to: leave 'calendar' out of its attributes");
        }
        Map<String, String> all = new HashMap<>(attributes);
        all.put("calendar", Integer.toString(calendar));
        return events.create(all);
    }


    // --- users and groups: each owns a calendar --------------------------------------------------

    /** Creates a user (and the user's calendar); returns the user's id. */
    public final int createUser(String name) throws IOException {
        return createOwner(users, "user", name);
    }

    /** Creates a group (and the group's calendar); returns the group's id. */
    public final int createGroup(String name) throws IOException {
        return createOwner(groups, "group", name);
    }

    private int createOwner(EventStore owners, String kind, String name) throws IOException {
        int id = owners.create(Map.of("name", name));  // not a user (or group) until it names its calendar
        Entry owner = owners.entry(id);
        owner.lock.lock();
        try {
            int calendar = calendars.create(Map.of("owner", kind + ":" + id));
            owners.publish(id, owner, owner.event().with(Map.of("calendar", Integer.toString(calendar))));  // commit
        } finally {
            owner.lock.unlock();
        }
        return id;
    }

    /** User {@code id} as last committed: name and calendar. */
    public final Optional<Event> user(int id) throws IOException {
        return committed(users.load(id));
    }

    /** Group {@code id} as last committed: name, calendar and a {@code member.ID} per member. */
    public final Optional<Event> group(int id) throws IOException {
        return committed(groups.load(id));
    }

    private static Optional<Event> committed(Optional<Event> owner) {
        return owner.filter(DatabaseFolders::isCommitted);
    }


    /** Removes user {@code user} from group {@code group} under the group's lock; GONE if the user was no member. */
    public final Outcome leave(int group, int user) throws IOException {
        Entry g = groups.entry(group);
        if (g == null) {
            return Outcome.GONE;
        }
        g.lock.lock();
        try {
            Event now = g.event();
            if (now == null || !now.attributes.containsKey("member." + user)) {
                return Outcome.GONE;
            }
            groups.publish(group, g, now.without("member." + user));
            return Outcome.OK;
        } finally {
            g.lock.unlock();
        }
    }


    /** Deletes group {@code id}, its calendar and the calendar's events. */
    public final Outcome deleteGroup(int id) throws IOException {
        int calendar = deleteOwner(groups, id);
        if (calendar < 0) {
            return Outcome.GONE;
        }
        deleteCalendar(calendar);
        return Outcome.OK;
    }

    /** Unpublishes a user or group under its lock (the delete's commit); returns its calendar, or -1 if it was gone. */
    private static int deleteOwner(EventStore owners, int id) throws IOException {
        Entry o = owners.entry(id);
        if (o == null) {
            return -1;
        }
        o.lock.lock();
        try {
            if (!isCommitted(o)) {
                return -1;
            }
            int calendar = Integer.parseInt(o.event().attributes.get("calendar"));
            owners.unpublish(id, o);
            return calendar;
        } finally {
            o.lock.unlock();
        }
    }

    /**
     * The rest of an owner's delete, after its commit: the calendar's events, then the calendar. Takes the calendar's
     * lock, then each event's (calendars before events): hold no calendar's or event's lock when you call it.
     */
    protected final void deleteCalendar(int calendar) throws IOException {
        Entry c = calendars.entry(calendar);
        c.lock.lock();  // no event can be added to it from here on
        try {
            Event now = c.event();
            if (now == null) {
                return;
            }
            for (int event : references(now, "event.")) {
                Entry e = events.entry(event);
                e.lock.lock();  // calendars before events
                try {
                    if (e.event() != null) {
                        events.unpublish(event, e);
                    }
                } finally {
                    e.lock.unlock();
                }
            }
            calendars.unpublish(calendar, c);
        } finally {
            c.lock.unlock();
        }
    }

    // --- events: each in one calendar ------------------------------------------------------------


    /** Changes some attributes of event {@code id} (not its calendar); DELETED if it was deleted. */
    public final Outcome modifyEvent(int id, Map<String, String> changes) throws IOException {
        if (changes.containsKey("calendar")) {
            throw new IllegalArgumentException("an event stays in its calendar: delete it and add it to the other one");
        }
        return events.modify(id, changes);  // the event's own lock (EventStore, specs/CalendarStore.tla)
    }

    /** Deletes event {@code id} from its calendar; GONE if it was not there. */
    public final Outcome deleteEvent(int id) throws IOException {
        Optional<Event> seen = events.load(id);
        if (seen.isEmpty()) {
            return Outcome.GONE;
        }
        int calendar = Integer.parseInt(seen.get().attributes.get("calendar"));  // an event never changes calendar
        Entry c = calendars.entry(calendar);
        Entry e = events.entry(id);
        c.lock.lock();  // calendars before events
        try {
            e.lock.lock();
            try {
                if (e.event() == null) {
                    return Outcome.GONE;
                }
                events.unpublish(id, e);  // commit
                if (c.event() != null) {
                    calendars.publish(calendar, c, c.event().without("event." + id));
                }
                return Outcome.OK;
            } finally {
                e.lock.unlock();
            }
        } finally {
            c.lock.unlock();
        }
    }

    /** Event {@code id} as last committed, if it exists. Takes no lock. */
    public final Optional<Event> event(int id) throws IOException {
        return events.load(id);
    }

    /** What a user sees of calendar {@code id}: its events, each as last committed; empty if it was deleted. Takes no lock. */
    public final Optional<List<Event>> loadCalendar(int id) throws IOException {
        Optional<Event> c = calendars.load(id);
        if (c.isEmpty()) {
            return Optional.empty();
        }
        List<Event> seen = new ArrayList<>();
        for (int event : references(c.get(), "event.")) {
            events.load(event).ifPresent(seen::add);  // one deleted since the calendar was read is left out
        }
        return Optional.of(seen);
    }

    // --- integrity: DatabaseIntegrity's, read through final methods ------------------------------

    /**
     * What is wrong with the references, when no request is under way: an empty list when every
     * user and group owns a live calendar that names it as owner, every member is a live user,
     * every event a calendar lists is live and names it, and every live event is listed.
     */
    public final List<String> problems() throws IOException {
        return integrity.problems();
    }

    /** Whether the user or group that owns this calendar is committed and names it. Takes no lock. */
    protected final boolean ownerLive(Event calendar) {
        return integrity.ownerLive(calendar);
    }

    // --- how entities name each other ------------------------------------------------------------

    /** A calendar's owner, written "user:ID" or "group:ID": its kind and its id. */
    static String[] owner(Event calendar) {
        return calendar.attributes.get("owner").split(":");
    }

    /** Whether this user or group is committed: created, and not deleted. */
    protected static boolean isCommitted(Entry owner) {
        Event now = owner.event();
        return now != null && isCommitted(now);
    }

    /** A user or group commits when it names its calendar: before that, it is a creation under way. */
    static boolean isCommitted(Event owner) {
        return owner.attributes.containsKey("calendar");
    }

    /** The ids an entity references by attributes named {@code prefix + ID}, ascending. */
    static List<Integer> references(Event entity, String prefix) {
        List<Integer> ids = new ArrayList<>();
        for (String name : entity.attributes.keySet()) {
            if (name.startsWith(prefix)) {
                ids.add(Integer.parseInt(name.substring(prefix.length())));
            }
        }
        ids.sort(null);
        return ids;
    }

    /**
     * Forces each file to the disk before its version is published ({@link EventFolder#durable}), so that a
     * power cut loses no committed request either, not only a killed process. Slower: one fsync per file.
     */
    public final void durable(boolean on) {
        for (EventStore s : List.of(users, groups, calendars, events)) {
            s.durable = on;
        }
    }

    /** How many entities and references opening the database removed or dropped to repair a kill. */
    public final int repaired() {
        return repaired;
    }

    /** How many users, groups, calendars and events are live: for a reader's overview. */
    public final Map<String, Integer> counts() {
        Map<String, Integer> n = new LinkedHashMap<>();
        n.put("users", (int) users.ids().stream().filter(i -> users.load(i).isPresent()).count());
        n.put("groups", (int) groups.ids().stream().filter(i -> groups.load(i).isPresent()).count());
        n.put("calendars", (int) calendars.ids().stream().filter(i -> calendars.load(i).isPresent()).count());
        n.put("events", (int) events.ids().stream().filter(i -> events.load(i).isPresent()).count());
        return n;
    }

    @Override
    public final void close() throws IOException {
        for (EventStore s : List.of(users, groups, calendars, events)) {
            s.close();
        }
    }
}
