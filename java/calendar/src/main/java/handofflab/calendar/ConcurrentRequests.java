package handofflab.calendar;

import static handofflab.calendar.Trials.check;

import handofflab.calendar.Events.Outcome;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The database's trial of many requests at once ({@link DatabaseTrials#concurrent}): four threads send random
 * requests, drawn from {@link Request}'s mix, to a few recent users and events, so that joins, added events,
 * modifies and deletes of the same entities race; then the database must show no broken reference and the state
 * the requests' outcomes say (see {@link #verdict}). A deadlock is named by the JVM's own cycle detection, no clock.
 */
final class ConcurrentRequests {
    /** The requests a thread sends, each with its share of 20 draws: the mix of the trial. */
    enum Request {
        CREATE_USER(3), JOIN(3), LEAVE(1), ADD_EVENT(5), DELETE_USER(2), DELETE_EVENT(2), MODIFY_EVENT(2),
        LOAD_CALENDAR(2);

        final int share;

        Request(int share) {
            this.share = share;
        }

        static final int DRAWS = 20;

        /** The request a draw of 0 to DRAWS - 1 picks: the shares laid end to end, in order. */
        static Request of(int draw) {
            for (Request r : values()) {
                if (draw < r.share) {
                    return r;
                }
                draw -= r.share;
            }
            throw new IllegalArgumentException("a draw past " + DRAWS);
        }
    }

    private static final int THREADS = 4;
    private static final int RECENT = 32;  // few, so that requests meet on the same entities

    private final DatabaseFolders db;
    private final int[] groupIds = new int[8];
    // the recent entities each thread picks from, by slot: a slot's user, its calendar, an event
    private final AtomicIntegerArray users = new AtomicIntegerArray(RECENT), calendars = new AtomicIntegerArray(RECENT);
    private final AtomicIntegerArray events = new AtomicIntegerArray(RECENT);
    // what the requests' outcomes said: the state the database must show at the end
    private final Set<Integer> created = ConcurrentHashMap.newKeySet(), deletedUsers = ConcurrentHashMap.newKeySet();
    private final Set<Integer> deletedEvents = ConcurrentHashMap.newKeySet();
    private final Set<List<Integer>> joined = ConcurrentHashMap.newKeySet(), left = ConcurrentHashMap.newKeySet();
    private final Map<Integer, Integer> added = new ConcurrentHashMap<>();  // event -> its owner (a user)
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    private final AtomicInteger done = new AtomicInteger();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());

    ConcurrentRequests(DatabaseFolders db) throws Exception {
        this.db = db;
        for (int g = 0; g < groupIds.length; g++) {
            groupIds[g] = db.createGroup("group " + g);
        }
        for (int i = 0; i < RECENT; i++) {
            int u = db.createUser("user " + i);
            users.set(i, u);
            calendars.set(i, calendarOf(u));
            events.set(i, db.addEvent(calendars.get(i), Map.of("name", "event " + i)));
            created.add(users.get(i));
            added.put(events.get(i), users.get(i));
        }
    }

    /** {@code requests} requests on four threads, then the verdict; how the races went. */
    String run(int requests, long seed) throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Random random = new Random(seed * 31 + t);
            threads.add(new Thread(() -> send(requests / THREADS, random), "request-thread-" + t));
        }
        threads.forEach(Thread::start);
        awaitWithoutDeadlock(threads);
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError("a request failed: " + failures.get(0), failures.get(0));
            failures.subList(1, failures.size()).forEach(e::addSuppressed);
            throw e;
        }
        verdict();
        return done.get() + " requests: " + new TreeMap<>(outcomes) + "; now " + db.counts();
    }

    private void send(int count, Random random) {
        try {
            for (int n = 0; n < count && !stop.get(); n++) {
                int slot = random.nextInt(RECENT);
                int u = users.get(slot);
                String what = send(Request.of(random.nextInt(Request.DRAWS)), slot, u, random, n);
                outcomes.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
                done.incrementAndGet();
            }
        } catch (Throwable e) {
            failures.add(e);
        }
    }

    /** One request on the entities of {@code slot} (its user {@code u}), noted when it returned OK; what it was told. */
    private String send(Request request, int slot, int u, Random random, int n) throws Exception {
        switch (request) {
            case CREATE_USER: {
                int fresh = db.createUser("user");
                int c = calendarOf(fresh);
                created.add(fresh);
                calendars.set(slot, c);  // first the calendar, so that a reader of the user's slot finds its own or a newer one
                users.set(slot, fresh);
                return "createUser";
            }
            case JOIN: {
                int g = groupIds[random.nextInt(groupIds.length)];
                Outcome o = db.join(g, u);
                if (o == Outcome.OK) {
                    joined.add(List.of(g, u));
                }
                return "join " + o;
            }
            case LEAVE: {  // leaves keep the groups small: a group is rewritten whole at each change (a new version)
                int g = groupIds[random.nextInt(groupIds.length)];
                Outcome o = db.leave(g, u);
                if (o == Outcome.OK) {
                    left.add(List.of(g, u));  // its join and leave may be recorded out of order: not judged
                }
                return "leave " + o;
            }
            case ADD_EVENT: {
                int c = calendars.get(slot);
                Optional<Integer> owner = calendarOwner(c);
                int e = db.addEvent(c, Map.of("name", "event", "date", "d0", "time", "d0"));
                if (e >= 0) {
                    added.put(e, owner.orElseThrow(() -> new AssertionError(
                            "calendar " + c + " took event " + e + " though it was deleted before")));
                    events.set(random.nextInt(RECENT), e);
                }
                return "addEvent " + (e >= 0 ? "OK" : "DELETED");
            }
            case DELETE_USER: {
                Outcome o = db.deleteUser(u);
                if (o == Outcome.OK) {
                    deletedUsers.add(u);
                }
                return "deleteUser " + o;
            }
            case DELETE_EVENT: {
                int e = events.get(slot);
                Outcome o = db.deleteEvent(e);
                if (o == Outcome.OK) {
                    deletedEvents.add(e);
                }
                return "deleteEvent " + o;
            }
            case MODIFY_EVENT: {
                String v = "d" + n;
                return "modifyEvent " + db.modifyEvent(events.get(slot), Map.of("date", v, "time", v));
            }
            default:
                return loadCalendar(calendars.get(slot));
        }
    }

    /** A load sees only its own calendar's events, each modified whole or not at all. */
    private String loadCalendar(int c) throws Exception {
        Optional<List<Event>> seen = db.loadCalendar(c);
        for (Event e : seen.orElse(List.of())) {
            check(Integer.toString(c).equals(e.attributes.get("calendar")),
                    "loading calendar " + c + " showed event " + e.id + " of calendar " + e.attributes.get("calendar"));
            check(e.attributes.getOrDefault("date", "").equals(e.attributes.getOrDefault("time", "")),
                    "loading calendar " + c + " showed half a modification: " + e);
        }
        return "loadCalendar " + (seen.isPresent() ? "found" : "gone");
    }

    /** Joins the request threads, or names the deadlock (or the lock kept by an ended one) that keeps them. */
    private void awaitWithoutDeadlock(List<Thread> threads) throws InterruptedException {
        ThreadMXBean jvm = ManagementFactory.getThreadMXBean();
        try {
            for (Thread t : threads) {
                while (t.isAlive()) {
                    t.join(200);
                    long[] stuck = jvm.findDeadlockedThreads();
                    if (RequestWatch.inCycle(stuck, threads)) {
                        StringBuilder who = new StringBuilder();
                        for (ThreadInfo i : jvm.getThreadInfo(stuck)) {
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
    }

    /**
     * A request thread that waits for a lock whose owner has ended waits for ever, and it is no cycle for
     * findDeadlockedThreads: a request returned without its unlock (a refusal that keeps its lock). Said at once,
     * not after the test's time limit, which a JVM of tests shares with the tests that are scored.
     */
    static void keptByAnEndedThread(ThreadMXBean jvm, List<Thread> threads, int done) {
        for (Thread t : threads) {
            ThreadInfo i = t.isAlive() ? jvm.getThreadInfo(t.getId()) : null;
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

    /**
     * No broken reference ({@link DatabaseFolders#problems}), and the state the outcomes say: every user, event and
     * membership (of a user who never left) is there exactly when a request that returned OK put it there and none
     * that returned OK removed it.
     */
    private void verdict() throws Exception {
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
    }

    private int calendarOf(int user) throws Exception {
        return Integer.parseInt(db.user(user).get().attributes.get("calendar"));
    }

    /** The id of the user or group that owns calendar {@code c}, if the calendar is there now. */
    private Optional<Integer> calendarOwner(int c) throws Exception {
        return db.calendars.load(c).map(cal -> Integer.parseInt(DatabaseFolders.owner(cal)[1]));
    }
}
