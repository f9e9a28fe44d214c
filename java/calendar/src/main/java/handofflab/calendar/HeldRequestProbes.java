package handofflab.calendar;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The database's two probes ({@link DatabaseTrials#raceProbe}, {@link DatabaseTrials#independenceProbe}): one
 * request held just after it first reads its user, another sent beside it, in the one schedule that shows a slip,
 * so that the verdict is the same every run.
 */
final class HeldRequestProbes {
    private HeldRequestProbes() {
    }

    /** A read hook that holds {@code held} at its first read of the entity: it counts {@code reached} down and waits for {@code release}. */
    private static Runnable holdAt(Thread held, CountDownLatch reached,
                                   CountDownLatch release) {
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
            raceOnce(DatabaseTrials.open(databaseClass, null), race);
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
    private static Supplier<String> request(DatabaseFolders db, String race, int g, int u, int c) {
        return race.equals("join") ? () -> Trials.unchecked(() -> db.join(g, u)).name()
                : () -> Trials.unchecked(() -> db.addEvent(c, Map.of("name", "e"))) >= 0 ? "OK" : "DELETED";
    }

    /** How both probes begin: user 1's request held where it first reads its user, user 2's sent beside it. */
    private static final class HeldPair {
        final String heldStep, sentStep;
        final String[] told = {"nothing (it failed)", "nothing (it failed)"};
        final List<String[]> steps = new ArrayList<>();
        final Thread user1, user2;
        final Map<String, ReentrantLock> locks;  // by entity, to name what user 2 waits for
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
                 Supplier<String> second, Map<String, ReentrantLock> locks)
                throws Exception {
            this.heldStep = race.equals("join") ? "join(group " + g + ", user " + u + ")"
                    : "addEvent(calendar " + c + ", of user " + u + ")";
            this.sentStep = sentStep;
            this.locks = locks;
            Supplier<String> first = request(db, race, g, u, c);
            CountDownLatch reached = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
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
            DatabaseFolders db = DatabaseTrials.open(databaseClass, null);
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

    /** The entity whose lock {@code t} waits for, by name; null if it waits for none of them. */
    private static String lockWaitedFor(Thread t, Map<String, ReentrantLock> locks) {
        return locks.entrySet().stream().filter(l -> l.getValue().hasQueuedThread(t)).map(Map.Entry::getKey).findFirst()
                .orElse(null);
    }

    /**
     * Waits for both requests to return; null when they did, or how they are stuck: a cycle of threads each waiting
     * for a lock another holds (the JVM's own detection, exact), or a lock kept by a request that returned.
     */
    private static String awaitBoth(Thread user1, Thread user2, Map<String, ReentrantLock> locks)
            throws InterruptedException {
        Function<Thread, String> waitsFor = t -> Objects.requireNonNullElse(lockWaitedFor(t, locks),
                "a lock");
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long keptSince = 0;
        while (user1.isAlive() || user2.isAlive()) {
            user1.join(5);
            user2.join(5);
            if (RequestWatch.inCycle(mx.findDeadlockedThreads(), List.of(user1, user2))) {
                return "user 1 waits for " + waitsFor.apply(user1) + ", which user 2 holds, and user 2 waits for "
                        + waitsFor.apply(user2) + ", which user 1 holds: each waits for the other for ever (locks taken"
                        + " against the one order: users, groups, calendars, events)";
            }
            Thread alive = user1.isAlive() ? user1 : user2;
            Thread gone = alive == user1 ? user2 : user1;
            ThreadInfo info = mx.getThreadInfo(alive.getId());
            boolean kept = !gone.isAlive() && info != null && info.getLockOwnerId() == gone.getId();
            keptSince = kept ? (keptSince == 0 ? System.nanoTime() : keptSince) : 0;
            if (kept && (System.nanoTime() - keptSince) / 1_000_000 >= RequestWatch.STALL_MS) {
                return alive.getName() + " waits for " + waitsFor.apply(alive) + ", which " + gone.getName()
                        + " still holds after it returned: a lock kept";
            }
        }
        return null;
    }
}
