package handofflab.checks;

import handofflab.calendar.DatabaseFolders;
import handofflab.calendar.Event;
import handofflab.calendar.Trials;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The program JPF explores for the calendar database (in memory: the same locks, no disk):
 * specs/CalendarEntities.tla's races, each request on a thread of its own: J adds user u to group g
 * while D deletes u, or A adds an event to u's calendar while D deletes u (one race per run, so that
 * each search stays within JPF's budget; J and A touch different entities, and the spec checks the
 * three at once). JPF tries every interleaving. The rules are
 * the spec's, by its names: no group lists a deleted user (NoDanglingMember), no event outlives its
 * calendar and every listed event is there (NoOrphanEvent), and what the three were told is what one
 * of the six orderings tells them (OneOfTheOrderings). A broken rule is the AssertionError below; locks
 * taken against the one order are JPF's NotDeadlockedProperty.
 */
public final class DatabaseJpfDriver {
    private DatabaseJpfDriver() {
    }

    /** Arguments: the database's class (CalendarDatabase or a buggy one) by its full name, and the race: join or add. */
    public static void main(String[] args) throws Exception {
        String name = args.length > 0 ? args[0] : "handofflab.calendar.CalendarDatabase";  // by name: a database lab's student copy withholds it
        boolean join = args.length < 2 || args[1].equals("join");
        DatabaseFolders db = (DatabaseFolders) Class.forName(name).getConstructor(Path.class, String.class)
                .newInstance(null, "LazyList");
        int u = db.createUser("u");
        int g = db.createGroup("g");
        int c = Integer.parseInt(db.user(u).get().attributes.get("calendar"));
        String[] told = {"not sent", "not sent", "not sent"};
        Thread j = new Thread(() -> told[0] = Trials.unchecked(() -> db.join(g, u)).name(), "J-join");
        Thread d = new Thread(() -> told[1] = Trials.unchecked(() -> db.deleteUser(u)).name(), "D-deleteUser");
        Thread a = new Thread(() -> told[2] = Trials.unchecked(() -> db.addEvent(c, Map.of("name", "e"))) >= 0
                ? "OK" : "DELETED", "A-addEvent");
        Thread other = join ? j : a;
        other.start();
        d.start();
        other.join();
        d.join();
        // the properties of specs/CalendarEntities.tla, by its names; the first broken one is the verdict
        boolean member = db.group(g).get().attributes.containsKey("member." + u);
        if (member && db.user(u).isEmpty()) {
            throw new AssertionError("NoDanglingMember: group " + g + " lists user " + u + ", who was deleted (J was told "
                    + told[0] + ")");
        }
        Optional<List<Event>> calendar = db.loadCalendar(c);
        List<String> wrong = db.problems();
        if (!wrong.isEmpty()) {
            StringBuilder what = new StringBuilder();  // by hand: JPF's String has no join of a list
            for (String w : wrong) {
                what.append(what.length() == 0 ? "" : "; ").append(w);
            }
            throw new AssertionError("NoOrphanEvent: " + what + " (A was told " + told[2] + ")");
        }
        // D deletes u whatever the order, so u, its calendar and its events are gone; J and A were told OK
        // exactly when they came before D (their outcomes are independent of each other)
        if (!"OK".equals(told[1]) || db.user(u).isPresent() || calendar.isPresent() || member) {
            throw new AssertionError("OneOfTheOrderings: D was told " + told[1] + ", and the user, the calendar or the "
                    + "membership is still there: none of the six orderings");
        }
    }
}
