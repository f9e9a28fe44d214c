package handofflab.calendar;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntPredicate;

/**
 * The rule every reference of {@link DatabaseFolders} keeps, when no request is under way: every user and group
 * owns a live calendar that names it as owner, every member is a live user, every event a calendar lists is live
 * and names it, and every live event is listed. {@link #problems} says where it is broken; {@link #repair}
 * restores it after a kill, as the commit points decide. Both read the four collections directly, not through
 * a policy's overridable methods.
 */
final class DatabaseIntegrity {
    private final EventStore users;
    private final EventStore groups;
    private final EventStore calendars;
    private final EventStore events;

    DatabaseIntegrity(EventStore users, EventStore groups, EventStore calendars, EventStore events) {
        this.users = users;
        this.groups = groups;
        this.calendars = calendars;
        this.events = events;
    }

    /**
     * What is wrong with the references, when no request is under way: an empty list when every
     * user and group owns a live calendar that names it as owner, every member is a live user,
     * every event a calendar lists is live and names it, and every live event is listed.
     */
    List<String> problems() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (int u : users.ids()) {
            users.load(u).ifPresent(user -> checkOwner(wrong, "user", user));
        }
        for (int g : groups.ids()) {
            Optional<Event> group = groups.load(g);
            if (group.isEmpty()) {
                continue;
            }
            checkOwner(wrong, "group", group.get());
            for (int m : DatabaseFolders.references(group.get(), "member.")) {
                if (committedUser(m).isEmpty()) {
                    wrong.add("group " + g + " lists member " + m + ", a user who was deleted");
                }
            }
        }
        for (int c : calendars.ids()) {
            Optional<Event> calendar = calendars.load(c);
            if (calendar.isEmpty()) {
                continue;
            }
            if (!ownerLive(calendar.get())) {
                wrong.add("calendar " + c + " outlives its owner " + calendar.get().attributes.get("owner"));
            }
            for (int e : DatabaseFolders.references(calendar.get(), "event.")) {
                Optional<Event> event = events.load(e);
                if (event.isEmpty()) {
                    wrong.add("calendar " + c + " lists event " + e + ", which was deleted");
                } else if (!Integer.toString(c).equals(event.get().attributes.get("calendar"))) {
                    wrong.add("calendar " + c + " lists event " + e + ", which is in calendar " + event.get().attributes.get("calendar"));
                }
            }
        }
        for (int e : events.ids()) {
            Optional<Event> event = events.load(e);
            if (event.isPresent() && !listedByItsCalendar(event.get())) {
                wrong.add("event " + e + " is in no live calendar (an orphan): " + event.get().attributes);
            }
        }
        return wrong;
    }

    private void checkOwner(List<String> wrong, String kind, Event owner) {
        String calendar = owner.attributes.get("calendar");
        if (calendar == null) {
            wrong.add(kind + " " + owner.id + " names no calendar (a creation that never committed)");
        } else if (!ownsItsCalendar(kind, owner)) {
            boolean gone = calendars.load(Integer.parseInt(calendar)).isEmpty();
            wrong.add(kind + " " + owner.id + " names calendar " + calendar + ", which is " + (gone ? "deleted" : "not its own"));
        }
    }

    /** Whether the user or group that owns this calendar is committed and names it. Takes no lock. */
    boolean ownerLive(Event calendar) {
        String[] owner = DatabaseFolders.owner(calendar);
        Optional<Event> o = (owner[0].equals("user") ? users : groups).load(Integer.parseInt(owner[1]));
        return o.isPresent() && Integer.toString(calendar.id).equals(o.get().attributes.get("calendar"));
    }

    private boolean listedByItsCalendar(Event event) {
        Optional<Event> c = calendars.load(Integer.parseInt(event.attributes.get("calendar")));
        return c.isPresent() && c.get().attributes.containsKey("event." + event.id);
    }

    // ANCHOR: repair
    /**
     * Makes the references whole again after a kill, as the commit points decide: a user or group
     * that names no live calendar of its own never committed (removed); a calendar whose owner is
     * gone belongs to a committed delete (removed, with its events); an event its calendar does not
     * list was never added (removed); a reference to a deleted event or user belongs to a committed
     * delete (dropped). Runs before any request, so it takes no locks. Returns how many entities and
     * references it removed or dropped.
     */
    int repair() throws IOException {
        int repaired = 0;
        for (EventStore owners : List.of(users, groups)) {
            String kind = owners == users ? "user" : "group";
            for (int id : owners.ids()) {
                Optional<Event> o = owners.load(id);
                if (o.isPresent() && !ownsItsCalendar(kind, o.get())) {
                    owners.unpublish(id, owners.entry(id));
                    repaired++;
                }
            }
        }
        for (int id : calendars.ids()) {
            Optional<Event> c = calendars.load(id);
            if (c.isPresent() && !ownerLive(c.get())) {
                calendars.unpublish(id, calendars.entry(id));
                repaired++;
            }
        }
        for (int id : events.ids()) {
            Optional<Event> e = events.load(id);
            if (e.isPresent() && !listedByItsCalendar(e.get())) {
                events.unpublish(id, events.entry(id));
                repaired++;
            }
        }
        for (int id : calendars.ids()) {
            repaired += dropDangling(calendars, id, "event.", e -> events.load(e).isPresent()) ? 1 : 0;
        }
        for (int id : groups.ids()) {
            repaired += dropDangling(groups, id, "member.", u -> committedUser(u).isPresent()) ? 1 : 0;
        }
        return repaired;
    }
    // ANCHOR_END: repair

    private boolean ownsItsCalendar(String kind, Event owner) {
        String calendar = owner.attributes.get("calendar");
        if (calendar == null) {
            return false;
        }
        Optional<Event> c = calendars.load(Integer.parseInt(calendar));
        return c.isPresent() && (kind + ":" + owner.id).equals(c.get().attributes.get("owner"));
    }

    /** Drops the references of entity {@code id} that are not {@code live}; whether it dropped any. */
    private boolean dropDangling(EventStore store, int id, String prefix, IntPredicate live) throws IOException {
        Optional<Event> entity = store.load(id);
        if (entity.isEmpty()) {
            return false;
        }
        Event kept = entity.get();
        for (int ref : DatabaseFolders.references(kept, prefix)) {
            if (!live.test(ref)) {
                kept = kept.without(prefix + ref);
            }
        }
        if (!kept.equals(entity.get())) {
            store.publish(id, store.entry(id), kept);
            return true;
        }
        return false;
    }

    /** User {@code id} as last committed, if it is: {@link DatabaseFolders#user}, read here. */
    private Optional<Event> committedUser(int id) {
        return users.load(id).filter(DatabaseFolders::isCommitted);
    }
}
