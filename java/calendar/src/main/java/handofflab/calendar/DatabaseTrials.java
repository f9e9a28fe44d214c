package handofflab.calendar;

import static handofflab.calendar.Trials.check;
import static handofflab.calendar.Trials.say;
import static handofflab.calendar.Trials.wholeLine;

import handofflab.calendar.Events.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Trials of the whole database ({@link DatabaseFolders}: the kit's or a student's) with real threads and real files, as
 * specs/CalendarEntities.tla states its promises: requests that span entities (a join beside the
 * user's delete, an event added beside its owner's delete) leave no reference to a deleted entity
 * and lose no committed request, and a database killed with SIGKILL at any instant opens again
 * whole. Each trial ends in an {@link AssertionError} that names what is wrong.
 */
public final class DatabaseTrials {
    private DatabaseTrials() {
    }

    /**
     * Runs {@code requests} random requests on four threads at once on a small set of recent users
     * and events, so that joins, added events, modifies and deletes of the same entities race; then
     * checks that {@link DatabaseFolders#problems} finds nothing and that the state is the one the
     * requests' outcomes say: every user, event and membership (of a user who never left) is there
     * exactly when a request that returned OK put it there and none that returned OK removed it. A deadlock is named (the JVM's
     * own cycle detection, no clock). Returns how the races went.
     */
    public static String concurrent(DatabaseFolders db, int requests, long seed) throws Exception {
        int[] groupIds = new int[8];
        for (int g = 0; g < groupIds.length; g++) {
            groupIds[g] = db.createGroup("group " + g);
        }
        int recent = 32;  // few, so that requests meet on the same entities
        AtomicIntegerArray users = new AtomicIntegerArray(recent), calendars = new AtomicIntegerArray(recent);
        AtomicIntegerArray events = new AtomicIntegerArray(recent);
        for (int i = 0; i < recent; i++) {
            int u = db.createUser("user " + i);
            users.set(i, u);
            calendars.set(i, Integer.parseInt(db.user(u).get().attributes.get("calendar")));
            events.set(i, db.addEvent(calendars.get(i), Map.of("name", "event " + i)));
        }
        Set<Integer> created = ConcurrentHashMap.newKeySet(), deletedUsers = ConcurrentHashMap.newKeySet();
        Set<Integer> deletedEvents = ConcurrentHashMap.newKeySet();
        Set<List<Integer>> joined = ConcurrentHashMap.newKeySet(), left = ConcurrentHashMap.newKeySet();
        Map<Integer, Integer> added = new ConcurrentHashMap<>();  // event -> its owner (a user)
        for (int i = 0; i < recent; i++) {
            created.add(users.get(i));
            added.put(events.get(i), users.get(i));
        }
        Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        AtomicInteger done = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        int perThread = requests / 4;
        for (int t = 0; t < 4; t++) {
            Random random = new Random(seed * 31 + t);
            threads.add(new Thread(() -> {
                try {
                    for (int n = 0; n < perThread && !stop.get(); n++) {
                        int slot = random.nextInt(recent);
                        int u = users.get(slot);
                        int op = random.nextInt(20);
                        String what;
                        if (op < 3) {
                            int fresh = db.createUser("user");
                            int c = Integer.parseInt(db.user(fresh).get().attributes.get("calendar"));
                            created.add(fresh);
                            calendars.set(slot, c);  // first the calendar, so that a reader of the user's slot finds its own or a newer one
                            users.set(slot, fresh);
                            what = "createUser";
                        } else if (op < 6) {
                            int g = groupIds[random.nextInt(groupIds.length)];
                            Outcome o = db.join(g, u);
                            if (o == Outcome.OK) {
                                joined.add(List.of(g, u));
                            }
                            what = "join " + o;
                        } else if (op < 7) {
                            // Leaves keep the groups small: a group is rewritten whole at each change (a new version)
                            int g = groupIds[random.nextInt(groupIds.length)];
                            Outcome o = db.leave(g, u);
                            if (o == Outcome.OK) {
                                left.add(List.of(g, u));  // its join and leave may be recorded out of order: not judged
                            }
                            what = "leave " + o;
                        } else if (op < 12) {
                            int c = calendars.get(slot);
                            Optional<Integer> owner = calendarOwner(db, c);
                            int e = db.addEvent(c, Map.of("name", "event", "date", "d0", "time", "d0"));
                            if (e >= 0) {
                                added.put(e, owner.orElseThrow(() -> new AssertionError(
                                        "calendar " + c + " took event " + e + " though it was deleted before")));
                                events.set(random.nextInt(recent), e);
                            }
                            what = "addEvent " + (e >= 0 ? "OK" : "DELETED");
                        } else if (op < 14) {
                            Outcome o = db.deleteUser(u);
                            if (o == Outcome.OK) {
                                deletedUsers.add(u);
                            }
                            what = "deleteUser " + o;
                        } else if (op < 16) {
                            int e = events.get(slot);
                            Outcome o = db.deleteEvent(e);
                            if (o == Outcome.OK) {
                                deletedEvents.add(e);
                            }
                            what = "deleteEvent " + o;
                        } else if (op < 18) {
                            String v = "d" + n;
                            what = "modifyEvent " + db.modifyEvent(events.get(slot), Map.of("date", v, "time", v));
                        } else {
                            int c = calendars.get(slot);
                            Optional<List<Event>> seen = db.loadCalendar(c);
                            for (Event e : seen.orElse(List.of())) {
                                check(Integer.toString(c).equals(e.attributes.get("calendar")),
                                        "loading calendar " + c + " showed event " + e.id + " of calendar " + e.attributes.get("calendar"));
                                check(e.attributes.getOrDefault("date", "").equals(e.attributes.getOrDefault("time", "")),
                                        "loading calendar " + c + " showed half a modification: " + e);
                            }
                            what = "loadCalendar " + (seen.isPresent() ? "found" : "gone");
                        }
                        outcomes.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
                        done.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "request-thread-" + t));
        }
        threads.forEach(Thread::start);
        java.lang.management.ThreadMXBean jvm = ManagementFactory.getThreadMXBean();
        try {
            for (Thread t : threads) {
                while (t.isAlive()) {
                    t.join(200);
                    long[] stuck = jvm.findDeadlockedThreads();
                    if (inCycle(stuck, threads)) {
                        StringBuilder who = new StringBuilder();
                        for (java.lang.management.ThreadInfo i : jvm.getThreadInfo(stuck)) {
                            who.append("\n  ").append(i.getThreadName()).append(" waits for ")
                                    .append(RequestWatch.lockName(i.getLockInfo())).append(" held by ").append(i.getLockOwnerName());
                        }
                        throw new AssertionError("deadlock after " + done.get() + " requests:" + who);
                    }
                    keptByAnEndedThread(jvm, threads, done.get());
                }
            }
        } catch (AssertionError e) {
            // the request threads that are not stuck stop before the verdict goes back: a caller that removes the
            // database's folder then (a test's @TempDir) must not race their writes (beside busy loops it once did);
            // one deadline for all, since the stuck ones never end
            stop.set(true);
            long deadline = System.nanoTime() + 2_000_000_000L;
            for (Thread t : threads) {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            }
            throw e;
        }
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError("a request failed: " + failures.get(0), failures.get(0));
            failures.subList(1, failures.size()).forEach(e::addSuppressed);
            throw e;
        }
        List<String> wrong = db.problems();
        check(wrong.isEmpty(), "after " + done.get() + " requests the references are broken:\n  "
                + String.join("\n  ", wrong.subList(0, Math.min(10, wrong.size()))));
        for (int u : created) {
            check(db.user(u).isPresent() != deletedUsers.contains(u), "user " + u + " is " + (deletedUsers.contains(u)
                    ? "there, though its delete returned OK" : "lost, though no delete of it returned OK"));
        }
        for (Map.Entry<Integer, Integer> a : added.entrySet()) {
            int e = a.getKey();
            boolean gone = deletedEvents.contains(e) || deletedUsers.contains(a.getValue());
            check(db.event(e).isPresent() != gone, "event " + e + " is " + (gone ? "there, though it or its owner was deleted"
                    : "lost, though neither it nor its owner " + a.getValue() + " was deleted"));
        }
        joined.removeAll(left);
        for (List<Integer> j : joined) {
            boolean member = db.group(j.get(0)).get().attributes.containsKey("member." + j.get(1));
            check(member != deletedUsers.contains(j.get(1)), "user " + j.get(1) + (member
                    ? " is still a member of group " + j.get(0) + ", though the user was deleted"
                    : " is no member of group " + j.get(0) + ", though the join returned OK and the user is there"));
        }
        return done.get() + " requests: " + new java.util.TreeMap<>(outcomes) + "; now " + db.counts();
    }

    /**
     * A request thread that waits for a lock whose owner has ended waits for ever, and it is no cycle for
     * findDeadlockedThreads: a request returned without its unlock (a refusal that keeps its lock). Said at once,
     * not after the test's time limit, which a JVM of tests shares with the tests that are scored.
     */
    static void keptByAnEndedThread(java.lang.management.ThreadMXBean jvm, List<Thread> threads, int done) {
        for (Thread t : threads) {
            java.lang.management.ThreadInfo i = t.isAlive() ? jvm.getThreadInfo(t.getId()) : null;
            if (i == null || i.getLockOwnerId() == -1) {
                continue;
            }
            for (Thread owner : threads) {
                if (owner.getId() == i.getLockOwnerId() && !owner.isAlive()) {
                    throw new AssertionError("after " + done + " requests " + t.getName() + " waits for "
                            + RequestWatch.lockName(i.getLockInfo()) + " held by " + owner.getName() + ", which has ended:"
                            + " a request returned without releasing its lock (unlock in a finally, on every way out)");
                }
            }
        }
    }

    /** The id of the user or group that owns calendar {@code c}, if the calendar is there now. */
    private static Optional<Integer> calendarOwner(DatabaseFolders db, int c) {
        return db.calendars.load(c).map(cal -> Integer.parseInt(DatabaseFolders.owner(cal)[1]));
    }

    /**
     * Runs {@link #main} on a database in {@code root} in a separate JVM, kills it with SIGKILL after
     * {@code lines} acknowledged requests, opens the database again and checks that its references
     * are whole and that every acknowledged request is there: each user, event and membership it
     * reported, unless a delete of it (or of its owner) was under way; nothing it reported deleted.
     */
    public static String crash(String databaseClass, Path root, int lines) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process driver = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                DatabaseTrials.class.getName(), root.toString(), databaseClass).redirectErrorStream(true).start();
        Set<Integer> users = new HashSet<>(), deleting = new HashSet<>(), deleted = new HashSet<>();
        Map<Integer, Integer> events = new HashMap<>();  // event -> owner
        Set<Integer> removing = new HashSet<>(), removed = new HashSet<>();
        Set<List<Integer>> members = new HashSet<>();
        int said = 0;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(driver.getInputStream(), StandardCharsets.UTF_8))) {
            boolean killed = false;
            for (String line; (line = wholeLine(out)) != null; ) {
                if (line.startsWith("Picked up ")) {
                    continue;  // the JVM's notice of JAVA_TOOL_OPTIONS, not the database's
                }
                String[] w = line.split(" ");
                if (!line.matches("[UdDJExX]( \\d+)+")) {
                    driver.destroyForcibly();
                    throw new AssertionError("the database's process failed: " + line);
                }
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
        try (DatabaseFolders db = open(databaseClass, root)) {
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
            return "killed after " + users.size() + " users, " + events.size() + " events and " + members.size()
                    + " memberships; reopening repaired " + db.repaired() + " entities or references; now " + db.counts();
        }
    }

    /** A database of class {@code databaseClass} (the kit's, a buggy one or a student's) on LazyLists, in {@code root}; null: in memory. */
    static DatabaseFolders open(String databaseClass, Path root) throws Exception {
        return (DatabaseFolders) Class.forName(databaseClass).getConstructor(Path.class, String.class).newInstance(root, "LazyList");
    }

    /** A read hook that holds {@code held} at its first read of the entity: it counts {@code reached} down and waits for {@code release}. */
    private static Runnable holdAt(Thread held, java.util.concurrent.CountDownLatch reached,
                                   java.util.concurrent.CountDownLatch release) {
        return () -> {
            if (Thread.currentThread() == held && reached.getCount() > 0) {
                reached.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /**
     * The race probe: specs/CalendarEntities.tla's two races, each run in the one schedule that shows its slip,
     * so that the verdict is the same every run, on a quiet machine or a busy one. The first request (a join of
     * user u to a group, or an event added to u's calendar) is held just after it first reads user u: the join's
     * check of the user, the add's check of the calendar's owner. The user's delete is sent beside it and runs
     * until it returns or waits; then the held request goes on. A correct database may make the delete wait or
     * not (checking the user under the user's lock, or under the group's, are both right); it must leave no
     * reference to a deleted entity, tell each user what one of the orderings tells them, and take its locks
     * in the one order. Throws a {@link StoreTrials.TrialFailure} named by the spec's rule: NoDanglingMember,
     * NoOrphanEvent, OneOfTheOrderings, or deadlock (the JVM's own cycle detection, no clock).
     */
    public static void raceProbe(String databaseClass) throws Exception {
        for (String race : new String[] {"join", "add"}) {
            raceOnce(open(databaseClass, null), race);
        }
    }

    private static void raceOnce(DatabaseFolders db, String race) throws Exception {
        int u = db.createUser("u"), g = db.createGroup("g");
        int c = Integer.parseInt(db.user(u).get().attributes.get("calendar"));
        HeldPair pair = new HeldPair(db, u, race, g, c, "deleteUser(" + u + ")",
                () -> Trials.unchecked(() -> db.deleteUser(u)).name(), Map.of(
                        "user " + u + "'s lock", db.users.entry(u).lock,
                        "group " + g + "'s lock", db.groups.entry(g).lock,
                        "calendar " + c + "'s lock", db.calendars.entry(c).lock));
        List<String[]> steps = pair.steps;
        String stuck = awaitBoth(pair.user1, pair.user2, pair.locks);
        if (stuck != null) {
            steps.add(new String[] {"afterwards", stuck});
            throw new StoreTrials.TrialFailure("deadlock: " + stuck, steps);
        }
        if (pair.held) {
            steps.add(new String[] {"user 1", pair.heldStep + " → " + pair.told[0]});
        }
        if (pair.waited != null) {
            steps.add(new String[] {"user 2", pair.sentStep + " → " + pair.told[1]});
        }
        boolean member = db.group(g).get().attributes.containsKey("member." + u);
        List<String> wrong = db.problems();
        if (member && db.user(u).isEmpty() || !wrong.isEmpty()) {
            String what = wrong.isEmpty() ? "group " + g + " lists user " + u + ", who was deleted" : String.join("; ", wrong);
            steps.add(new String[] {"afterwards", what});
            boolean dangling = member && db.user(u).isEmpty() || wrong.stream().anyMatch(w -> w.contains("lists member"));
            throw new StoreTrials.TrialFailure((dangling ? "NoDanglingMember: " : "NoOrphanEvent: ") + what, steps);
        }
        // the delete removes u whatever the order; the held request was told OK exactly when it came first
        if (!pair.told[1].equals("OK") || db.user(u).isPresent() || db.loadCalendar(c).isPresent()) {
            String what = pair.sentStep + " was told " + pair.told[1] + ", and user " + u + " or its calendar is still there";
            steps.add(new String[] {"afterwards", what});
            throw new StoreTrials.TrialFailure("OneOfTheOrderings: " + what, steps);
        }
    }

    /** A join of user {@code u} to group {@code g}, or ({@code race} "add") an event added to u's calendar {@code c}: what the user is told. */
    private static java.util.function.Supplier<String> request(DatabaseFolders db, String race, int g, int u, int c) {
        return race.equals("join") ? () -> Trials.unchecked(() -> db.join(g, u)).name()
                : () -> Trials.unchecked(() -> db.addEvent(c, Map.of("name", "e"))) >= 0 ? "OK" : "DELETED";
    }

    /** How both probes begin: user 1's request held where it first reads its user, user 2's sent beside it. */
    private static final class HeldPair {
        final String heldStep, sentStep;
        final String[] told = {"nothing (it failed)", "nothing (it failed)"};
        final List<String[]> steps = new ArrayList<>();
        final Thread user1, user2;
        final Map<String, java.util.concurrent.locks.ReentrantLock> locks;  // by entity, to name what user 2 waits for
        /** User 1's request was held after its read (it may also return without reading). */
        final boolean held;
        /** How user 2 waited while user 1 was held; null: it returned. */
        final String waited;

        /**
         * User 1 makes {@code race} (a join of u to g, or an event added to u's calendar c) and is held just after it
         * reads user u; then user 2's {@code second} is sent and runs until it returns or waits; then user 1 goes on.
         * Throws a deadlock if user 1, run alone, never reaches the read.
         */
        HeldPair(DatabaseFolders db, int u, String race, int g, int c, String sentStep,
                 java.util.function.Supplier<String> second, Map<String, java.util.concurrent.locks.ReentrantLock> locks)
                throws Exception {
            this.heldStep = race.equals("join") ? "join(group " + g + ", user " + u + ")"
                    : "addEvent(calendar " + c + ", of user " + u + ")";
            this.sentStep = sentStep;
            this.locks = locks;
            java.util.function.Supplier<String> first = request(db, race, g, u, c);
            java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            user1 = new Thread(() -> told[0] = first.get(), "user 1");
            user2 = new Thread(() -> told[1] = second.get(), "user 2");
            user1.setDaemon(true);
            user2.setDaemon(true);
            EventFolder.Entry user = db.users.entry(u);
            user.afterRead = holdAt(user1, reached, release);
            steps.add(new String[] {"user 1", heldStep + " starts"});
            try {
                user1.start();
                String before = RequestWatch.waitOrReturn(user1, reached);
                if (before != null && !before.equals("returned")) {
                    steps.add(new String[] {"user 1", heldStep + ", run alone, " + before});
                    throw new StoreTrials.TrialFailure("deadlock: " + heldStep + ", run alone, " + before, steps);
                }
                held = before == null;
                steps.add(new String[] {"user 1", held ? heldStep + " has read user " + u + " (the probe holds it there)"
                        : heldStep + " → " + told[0] + ", without reading user " + u});
                steps.add(new String[] {"user 2", sentStep + " starts"});
                user2.start();
                String w = RequestWatch.waitOrReturn(user2, null);
                String on = lockWaitedFor(user2, locks);
                if (w != null && on != null && w.startsWith("waits for ") && w.contains(", which")) {
                    w = "waits for " + on + w.substring(w.indexOf(", which"));
                }
                waited = w;
                steps.add(new String[] {"user 2", sentStep + (waited == null ? " → " + told[1] : " " + waited)});
            } finally {
                release.countDown();
                user.afterRead = null;
            }
            if (held) {  // said whether or not it has already returned: the same story every run
                steps.add(new String[] {"user 1", heldStep + " goes on"});
            }
        }
    }

    /**
     * The database's lock probe: the paper's per-entity locks, decided the race probe's way. A join of user u to
     * group g (then an event added to u's calendar) is held just after it first reads user u, holding whatever
     * locks it holds there; a join of another user v to another group h (an event added to v's calendar) is sent
     * beside it, and must return: the two share no entity, so in the paper's design they share no lock. One lock
     * around the whole database gives right answers, and makes every user wait for every other
     * ({@code IndependentEntities}). A request that never returns once the held one goes on is a deadlock.
     */
    public static void independenceProbe(String databaseClass) throws Exception {
        for (String race : new String[] {"join", "add"}) {
            DatabaseFolders db = open(databaseClass, null);
            int u = db.createUser("u"), g = db.createGroup("g"), v = db.createUser("v"), h = db.createGroup("h");
            int c = Integer.parseInt(db.user(u).get().attributes.get("calendar"));
            int cv = Integer.parseInt(db.user(v).get().attributes.get("calendar"));
            String sentStep = race.equals("join") ? "join(group " + h + ", user " + v + ")"
                    : "addEvent(calendar " + cv + ", of user " + v + ")";
            HeldPair pair = new HeldPair(db, u, race, g, c, sentStep, request(db, race, h, v, cv), Map.of(
                    "user " + u + "'s lock", db.users.entry(u).lock,
                    "group " + g + "'s lock", db.groups.entry(g).lock,
                    "calendar " + c + "'s lock", db.calendars.entry(c).lock));
            for (Thread t : new Thread[] {pair.user1, pair.user2}) {
                String after = RequestWatch.waitOrReturn(t, null);
                if (after != null) {
                    pair.steps.add(new String[] {t.getName(), "after user 1 was let go: " + after});
                    throw new StoreTrials.TrialFailure("deadlock: " + t.getName() + "'s request never returns after user 1's"
                            + " was let go (a lock kept?)", pair.steps);
                }
            }
            if (pair.waited != null) {
                String why = sentStep + " " + pair.waited + " while " + pair.heldStep + " was half way: they share no user,"
                        + " group, calendar or event, yet one waited for the other; lock each entity, as the paper does";
                pair.steps.add(new String[] {"afterwards", why});
                throw new StoreTrials.TrialFailure("IndependentEntities: " + why, pair.steps);
            }
        }
    }

    /**
     * Whether some of {@code threads} are in {@code deadlocked}, the JVM's cycles of threads each waiting for a lock
     * another holds (null: none). The JVM's check is JVM-wide: another test's threads may be stuck on purpose.
     */
    private static boolean inCycle(long[] deadlocked, List<Thread> threads) {
        return deadlocked != null && java.util.Arrays.stream(deadlocked)
                .anyMatch(id -> threads.stream().anyMatch(t -> t.getId() == id));
    }

    /** The entity whose lock {@code t} waits for, by name; null if it waits for none of them. */
    private static String lockWaitedFor(Thread t, Map<String, java.util.concurrent.locks.ReentrantLock> locks) {
        return locks.entrySet().stream().filter(l -> l.getValue().hasQueuedThread(t)).map(Map.Entry::getKey).findFirst()
                .orElse(null);
    }

    /**
     * Waits for both requests to return; null when they did, or how they are stuck: a cycle of threads each waiting
     * for a lock another holds (the JVM's own detection, exact), or a lock kept by a request that returned.
     */
    private static String awaitBoth(Thread user1, Thread user2, Map<String, java.util.concurrent.locks.ReentrantLock> locks)
            throws InterruptedException {
        java.util.function.Function<Thread, String> waitsFor = t -> java.util.Objects.requireNonNullElse(lockWaitedFor(t, locks),
                "a lock");
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long keptSince = 0;
        while (user1.isAlive() || user2.isAlive()) {
            user1.join(5);
            user2.join(5);
            if (inCycle(mx.findDeadlockedThreads(), List.of(user1, user2))) {
                return "user 1 waits for " + waitsFor.apply(user1) + ", which user 2 holds, and user 2 waits for "
                        + waitsFor.apply(user2) + ", which user 1 holds: each waits for the other for ever (locks taken"
                        + " against the one order: users, groups, calendars, events)";
            }
            Thread alive = user1.isAlive() ? user1 : user2;
            Thread gone = alive == user1 ? user2 : user1;
            java.lang.management.ThreadInfo info = mx.getThreadInfo(alive.getId());
            boolean kept = !gone.isAlive() && info != null && info.getLockOwnerId() == gone.getId();
            keptSince = kept ? (keptSince == 0 ? System.nanoTime() : keptSince) : 0;
            if (kept && (System.nanoTime() - keptSince) / 1_000_000 >= RequestWatch.STALL_MS) {
                return alive.getName() + " waits for " + waitsFor.apply(alive) + ", which " + gone.getName()
                        + " still holds after it returned: a lock kept";
            }
        }
        return null;
    }

    /**
     * The process {@link #crash} kills: {@code ROOT CLASS}. Four threads each create a user, join one of
     * two groups, add two events, delete the first, and delete every third user, printing each
     * request once it has returned: "U user", "J group user", "E user event", "X event", "D user"
     * ("x event" and "d user" just before a delete). What was printed was committed.
     */
    public static void main(String[] args) throws Exception {
        DatabaseFolders db = open(args[1], Paths.get(args[0]));
        int[] groups = {db.createGroup("readers"), db.createGroup("writers")};
        for (int t = 0; t < 4; t++) {
            new Thread(() -> {
                try {
                    for (int n = 0; ; n++) {
                        int u = db.createUser("user");
                        say("U " + u);
                        int g = groups[n % 2];
                        if (db.join(g, u) == Outcome.OK) {
                            say("J " + g + " " + u);
                        }
                        int c = Integer.parseInt(db.user(u).get().attributes.get("calendar"));
                        int first = db.addEvent(c, Map.of("name", "first"));
                        say("E " + u + " " + first);
                        say("E " + u + " " + db.addEvent(c, Map.of("name", "second")));
                        say("x " + first);
                        db.deleteEvent(first);
                        say("X " + first);
                        if (n % 3 == 0) {
                            say("d " + u);
                            db.deleteUser(u);
                            say("D " + u);
                        }
                    }
                } catch (Throwable e) {
                    say("failed: " + e);
                    System.exit(3);
                }
            }).start();
        }
    }
}
