package handofflab.calendar;

import static handofflab.calendar.Trials.check;
import static handofflab.calendar.Trials.say;
import static handofflab.calendar.Trials.wholeLine;

import handofflab.calendar.Events.Outcome;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The database's crash trial ({@link DatabaseTrials#crash}): {@link #main} runs requests in a JVM of its own and
 * prints each once it has returned; the trial kills that JVM with SIGKILL mid-request, opens the database again and
 * holds it to what was printed: its references whole, every acknowledged request there.
 */
final class CrashTrial {
    // What the killed process printed: users, deletes under way and done, memberships, events and their deletes
    private final Set<Integer> users = new HashSet<>(), deleting = new HashSet<>(), deleted = new HashSet<>();
    private final Map<Integer, Integer> events = new HashMap<>();  // event -> owner
    private final Set<Integer> removing = new HashSet<>(), removed = new HashSet<>();
    private final Set<List<Integer>> members = new HashSet<>();

    /** Kills the process after {@code lines} acknowledged requests, then checks the reopened database. */
    String run(String databaseClass, Path root, int lines) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process driver = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                CrashTrial.class.getName(), root.toString(), databaseClass).redirectErrorStream(true).start();
        int said = 0;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(driver.getInputStream(), StandardCharsets.UTF_8))) {
            boolean killed = false;
            for (String line; (line = wholeLine(out)) != null; ) {
                if (line.startsWith("Picked up ")) {
                    continue;  // the JVM's notice of JAVA_TOOL_OPTIONS, not the database's
                }
                if (!line.matches("[UdDJExX]( \\d+)+")) {
                    driver.destroyForcibly();
                    throw new AssertionError("the database's process failed: " + line);
                }
                note(line.split(" "));
                if (!killed && ++said >= lines) {
                    driver.toHandle().destroyForcibly();  // SIGKILL, mid-request; what is left in the pipe still counts
                    killed = true;
                }
            }
        } finally {
            driver.destroyForcibly();
            driver.waitFor(30, TimeUnit.SECONDS);
        }
        check(said >= lines, "the database's process stopped after " + said + " of " + lines + " requests");
        try (DatabaseFolders db = DatabaseTrials.open(databaseClass, root)) {
            verdict(db);
            return "killed after " + users.size() + " users, " + events.size() + " events and " + members.size()
                    + " memberships; reopening repaired " + db.repaired() + " entities or references; now " + db.counts();
        }
    }

    /** One line the process printed (see {@link #main}). */
    private void note(String[] w) {
        int a = Integer.parseInt(w[1]);
        switch (w[0]) {
            case "U": users.add(a); break;
            case "d": deleting.add(a); break;
            case "D": deleted.add(a); break;
            case "J": members.add(List.of(a, Integer.parseInt(w[2]))); break;
            case "E": events.put(Integer.parseInt(w[2]), a); break;
            case "x": removing.add(a); break;
            default: removed.add(a); break;
        }
    }

    /**
     * The reopened database's references are whole, and every acknowledged request is there: each user, event and
     * membership reported, unless a delete of it (or of its owner) was under way; nothing reported deleted.
     */
    private void verdict(DatabaseFolders db) throws Exception {
        List<String> wrong = db.problems();
        check(wrong.isEmpty(), "reopened after the kill, the references are broken:\n  " + String.join("\n  ", wrong));
        for (int u : users) {
            if (deleted.contains(u)) {
                check(db.user(u).isEmpty(), "user " + u + " was deleted before the kill, and is back");
            } else if (!deleting.contains(u)) {
                check(db.user(u).isPresent(), "user " + u + " was committed, and is lost");
            }
        }
        for (Map.Entry<Integer, Integer> e : events.entrySet()) {
            int owner = e.getValue();
            if (removed.contains(e.getKey()) || deleted.contains(owner)) {
                check(db.event(e.getKey()).isEmpty(), "event " + e.getKey() + " was deleted before the kill, and is back");
            } else if (!removing.contains(e.getKey()) && !deleting.contains(owner)) {
                check(db.event(e.getKey()).isPresent(), "event " + e.getKey() + " was added, and is lost");
            }
        }
        for (List<Integer> m : members) {
            int u = m.get(1);
            boolean member = db.group(m.get(0)).map(g -> g.attributes.containsKey("member." + u)).orElse(false);
            if (deleted.contains(u)) {
                check(!member, "user " + u + " was deleted before the kill, and is a member of group " + m.get(0) + " again");
            } else if (!deleting.contains(u)) {
                check(member, "user " + u + " joined group " + m.get(0) + ", and the membership is lost");
            }
        }
    }

    /**
     * The process the trial kills: {@code ROOT CLASS}. Four threads each create a user, join one of
     * two groups, add two events, delete the first, and delete every third user, printing each
     * request once it has returned: "U user", "J group user", "E user event", "X event", "D user"
     * ("x event" and "d user" just before a delete). What was printed was committed.
     */
    public static void main(String[] args) throws Exception {
        DatabaseFolders db = DatabaseTrials.open(args[1], Paths.get(args[0]));
        int[] groups = {db.createGroup("readers"), db.createGroup("writers")};
        for (int t = 0; t < 4; t++) {
            new Thread(() -> {
                try {
                    for (int n = 0; ; n++) {
                        requests(db, groups[n % 2], n % 3 == 0);
                    }
                } catch (Throwable e) {
                    say("failed: " + e);
                    System.exit(3);
                }
            }).start();
        }
    }

    /** One round of a thread of {@link #main}: a user who joins {@code group}, two events, one deleted; the user too. */
    private static void requests(DatabaseFolders db, int group, boolean deleteUser) throws Exception {
        int u = db.createUser("user");
        say("U " + u);
        if (db.join(group, u) == Outcome.OK) {
            say("J " + group + " " + u);
        }
        int c = Integer.parseInt(db.user(u).get().attributes.get("calendar"));
        int first = db.addEvent(c, Map.of("name", "first"));
        say("E " + u + " " + first);
        say("E " + u + " " + db.addEvent(c, Map.of("name", "second")));
        say("x " + first);
        db.deleteEvent(first);
        say("X " + first);
        if (deleteUser) {
            say("d " + u);
            db.deleteUser(u);
            say("D " + u);
        }
    }
}
