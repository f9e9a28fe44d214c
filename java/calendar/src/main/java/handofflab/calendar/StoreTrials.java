package handofflab.calendar;

import static handofflab.calendar.Trials.check;
import static handofflab.calendar.Trials.unchecked;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The two trials a store must pass with real threads and real files, shared by the kit's tests
 * of {@code EventStore} and the public tests of the lab "The calendar that forgets": every
 * outcome of concurrent requests is one of the paper's six orderings, and a store killed with
 * SIGKILL is reopened with nothing lost and nothing half-written. Each returns what it saw, or
 * throws an {@link AssertionError} that names what went wrong.
 *
 * <p>The first trial is a stress test: a store that locks wrongly fails it only when the
 * scheduler happens to line the race up. Lincheck decides that every time ({@code ./lab check
 * java EventStore}); this trial shows the race at the paper's scale.
 */
public final class StoreTrials {
    public static final Map<String, String> ORIGINAL = Map.of("date", "2016-04-16", "time", "10:00", "name", "event 62");
    public static final Map<String, String> MOVE = Map.of("date", "2016-04-17", "time", "14:00");

    /** A's outcome and what C saw ("original", "moved", "absent") for each of the six orderings. */
    public static final Set<String> SIX_ORDERINGS = Set.of(
            "OK/absent",        // A, B, C
            "OK/moved",         // A, C, B
            "DELETED/absent",   // B, A, C and B, C, A
            "OK/original",      // C, A, B
            "DELETED/original"  // C, B, A
    );

    /** The first id a check's events get: above the small-Integer cache ({@link EventFolder#startIdsAt}). */
    public static final int CHECKED_IDS = 1_000;

    private StoreTrials() {
    }

    /** Opens a store of class {@code storeClass} (a constructor (Path, String)) in {@code root}. */
    public static EventFolder open(String storeClass, Path root) throws IOException {
        try {
            return (EventFolder) Class.forName(storeClass).getConstructor(Path.class, String.class)
                    .newInstance(root, "LazyList");
        } catch (java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof IOException) {
                throw (IOException) e.getCause();
            }
            throw new IllegalStateException("opening " + storeClass + " failed: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(storeClass + " is no store with a public constructor (Path, String): " + e, e);
        }
    }

    /**
     * The paper's A, B and C on each of {@code events} events at once: a move, a delete and a
     * load, shuffled and run on 64 pool threads (the paper's setting). {@code root} is the store's
     * folder (null: in memory), checked afterwards for anything left behind. Returns how often
     * each ordering's outcome was seen.
     *
     * <p>A watchdog, not a clock, ends a trial that cannot finish: no request returned for
     * {@link RequestWatch#STALL_MS} while every thread waited is a deadlock, and none for {@link RequestWatch#SPIN_MS}
     * while some thread ran is a request that never returns. A busy machine slows a trial down
     * but never stops its requests returning, so neither is the machine's fault.
     */
    public static Map<String, Integer> sixOrderings(EventFolder store, int events, Path root) throws Exception {
        store.startIdsAt(CHECKED_IDS);
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            ids.add(store.create(ORIGINAL));
        }
        Map<Integer, Events.Outcome> a = new ConcurrentHashMap<>(), b = new ConcurrentHashMap<>();
        Map<Integer, String> c = new ConcurrentHashMap<>();
        AtomicLong done = new AtomicLong();
        Story story = new Story();
        List<Runnable> requests = new ArrayList<>();
        for (int id : ids) {
            requests.add(() -> a.put(id, story.told(id, "A: modify(" + id + ", move)", () -> store.modify(id, MOVE))));
            requests.add(() -> b.put(id, story.told(id, "B: delete(" + id + ")", () -> store.delete(id))));
            requests.add(() -> c.put(id, story.told(id, "C: load(" + id + ")", () -> seen(store.load(id)))));
        }
        Collections.shuffle(requests, new Random(62));
        List<Thread> threads = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(64, r -> {
            Thread t = new Thread(r, "user-" + threads.size());
            t.setDaemon(true);  // a deadlocked trial must not keep the JVM alive
            threads.add(t);
            return t;
        });
        for (Runnable r : requests) {
            pool.execute(() -> {
                r.run();
                done.incrementAndGet();
            });
        }
        pool.shutdown();
        watch(pool, done, threads);
        Map<String, Integer> seen = new TreeMap<>();
        for (int id : ids) {
            String outcome = a.get(id) + "/" + c.get(id);
            story.check(id, SIX_ORDERINGS.contains(outcome), "event " + id + ": A was told " + a.get(id) + " and C saw "
                    + c.get(id) + ", which is none of the six orderings");
            story.check(id, b.get(id) == Events.Outcome.OK, "event " + id + ": the one delete was told " + b.get(id) + ", not OK");
            story.check(id, store.load(id).isEmpty(), "event " + id + " is back after its delete (A was told " + a.get(id) + ")");
            story.check(id, !store.listed(id), "event " + id + " is still in the collection list after its delete");
            seen.merge(outcome, 1, Integer::sum);
        }
        if (root != null) {
            try (Stream<Path> links = Files.list(root.resolve("events")); Stream<Path> dirs = Files.list(root.resolve("versions"))) {
                check(links.count() == 0, "links are left in events/ after every event was deleted");
                check(dirs.count() == 0, "versions are left in versions/ after every event was deleted");
            }
        }
        return seen;
    }

    /** A trial's failure, with the story of the event it failed on: each request's start and return, in order. */
    public static final class TrialFailure extends AssertionError {
        /** {thread, what it did}, in the order the requests started and returned. */
        public final List<String[]> steps;

        TrialFailure(String problem, List<String[]> steps) {
            super(problem);
            this.steps = steps;
        }
    }

    /** Each event's requests as they started and returned, on one logical clock: a failure's swimlanes. */
    private static final class Story {
        private final AtomicLong clock = new AtomicLong();
        private final Map<Integer, Queue<Object[]>> byEvent = new ConcurrentHashMap<>();

        <T> T told(int id, String request, Trials.IoCall<T> call) {
            Queue<Object[]> q = byEvent.computeIfAbsent(id, k -> new ConcurrentLinkedQueue<>());
            String me = Thread.currentThread().getName();
            q.add(new Object[] {clock.incrementAndGet(), me, request + " starts"});
            T result = unchecked(call);
            q.add(new Object[] {clock.incrementAndGet(), me, request + " → " + result});
            return result;
        }

        void check(int id, boolean ok, String problem) {
            if (!ok) {
                List<Object[]> events = new ArrayList<>(byEvent.getOrDefault(id, new ArrayDeque<>()));
                events.sort((x, y) -> Long.compare((Long) x[0], (Long) y[0]));
                List<String[]> steps = new ArrayList<>();
                for (Object[] e : events) {
                    steps.add(new String[] {(String) e[1], (String) e[2]});
                }
                steps.add(new String[] {"afterwards", problem});
                throw new TrialFailure(problem, steps);
            }
        }
    }

    /**
     * The lock probe: it holds one request for event a at its commit (in {@code publish} or
     * {@code unpublish}, where a policy holds the locks it takes), then sends one more request
     * and decides: a request for event a must wait (every change to an event is made holding
     * that event's lock: {@code LockedPerEvent}); a request for event b must return (no request
     * waits for another event's: {@code IndependentEvents}, the paper's per-entity locks). Each of
     * the eight pairs (a modify or a delete held; a modify or a delete of a or of b sent) runs on a
     * fresh store in memory. The held request stays held until the verdict, so no schedule can hide
     * either: the probe finds the same every run. Throws a {@link TrialFailure} naming the property.
     */
    public static void lockProbe(String storeClass) throws Exception {
        for (String held : new String[] {"modify", "delete"}) {
            for (String sent : new String[] {"modify", "delete"}) {
                for (boolean sameEvent : new boolean[] {true, false}) {
                    probeOnce(open(storeClass, null), held, sent, sameEvent);
                }
            }
        }
    }

    private static Object request(EventFolder store, String kind, int id) throws IOException {
        return kind.equals("modify") ? store.modify(id, MOVE) : store.delete(id);
    }

    private static void probeOnce(EventFolder store, String held, String sent, boolean sameEvent) throws Exception {
        store.startIdsAt(CHECKED_IDS);
        int a = store.create(ORIGINAL), b = store.create(ORIGINAL);
        int target = sameEvent ? a : b;
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Object[] results = new Object[2];
        Thread user1 = new Thread(() -> results[0] = unchecked(() -> request(store, held, a)), "user 1");
        Thread user2 = new Thread(() -> results[1] = unchecked(() -> request(store, sent, target)), "user 2");
        store.atCommit = id -> {
            if (id == a && Thread.currentThread() == user1) {
                reached.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        String heldStep = held + "(" + a + (held.equals("modify") ? ", move)" : ")");
        String sentStep = sent + "(" + target + (sent.equals("modify") ? ", move)" : ")");
        List<String[]> steps = new ArrayList<>();
        steps.add(new String[] {"user 1", heldStep + " starts"});
        user1.setDaemon(true);
        user2.setDaemon(true);
        try {
            user1.start();
            String before = RequestWatch.waitOrReturn(user1, reached);
            if (before != null) {
                steps.add(new String[] {"user 1", heldStep + " " + before});
                throw new TrialFailure("deadlock: " + heldStep + ", run alone, " + before + " before its commit", steps);
            }
            steps.add(new String[] {"user 1", heldStep + " is held at its commit (the probe holds it there)"});
            steps.add(new String[] {"user 2", sentStep + " starts"});
            user2.start();
            String waited = RequestWatch.waitOrReturn(user2, null);
            steps.add(new String[] {"user 2", sentStep + (waited == null ? " → " + results[1] : " " + waited)});
            judgeSent(sameEvent, waited, heldStep, sentStep, steps);
        } finally {
            release.countDown();
            store.atCommit = null;
        }
        awaitLetGo(new Thread[] {user1, user2}, steps);
    }

    /**
     * The probe's verdict on the request sent while the held one is at its commit ({@code waited}: null if it
     * returned): for the same event it must wait (LockedPerEvent), for another event it must not (IndependentEvents).
     */
    private static void judgeSent(boolean sameEvent, String waited, String heldStep, String sentStep, List<String[]> steps) {
        if (sameEvent && waited == null) {
            String why = sentStep + " returned while " + heldStep + " was half way: requests for one event"
                    + " do not take its lock, one at a time";
            steps.add(new String[] {"afterwards", why});
            throw new TrialFailure("LockedPerEvent: " + why, steps);
        }
        if (!sameEvent && waited != null) {
            String why = sentStep + " " + waited + " while " + heldStep + " was half way: a request waits for"
                    + " another event's; lock each event, as the paper does";
            steps.add(new String[] {"afterwards", why});
            throw new TrialFailure("IndependentEvents: " + why, steps);
        }
    }

    /** Every user's request returns once user 1's is let go; one that never does is a deadlock (a lock kept?). */
    private static void awaitLetGo(Thread[] users, List<String[]> steps) throws InterruptedException {
        for (Thread t : users) {
            String after = RequestWatch.waitOrReturn(t, null);
            if (after != null) {
                steps.add(new String[] {t.getName(), "after user 1 was let go: " + after});
                throw new TrialFailure("deadlock: " + t.getName() + "'s request never returns after user 1's was let go"
                        + " (a lock kept?)", steps);
            }
        }
    }

    /** Waits for the pool's requests to finish, or throws what the watchdog saw. */
    private static void watch(ExecutorService pool, AtomicLong done, List<Thread> threads) throws InterruptedException {
        long last = -1, since = System.nanoTime();
        while (!pool.awaitTermination(100, TimeUnit.MILLISECONDS)) {
            long now = done.get();
            if (now != last) {
                last = now;
                since = System.nanoTime();
                continue;
            }
            long stalled = (System.nanoTime() - since) / 1_000_000;
            boolean allWait = threads.stream().allMatch(t -> !t.isAlive() || t.getState() == Thread.State.WAITING
                    || t.getState() == Thread.State.BLOCKED);
            if (allWait && stalled >= RequestWatch.STALL_MS || stalled >= RequestWatch.SPIN_MS) {
                pool.shutdownNow();
                throw new AssertionError((allWait ? "deadlock: every request waits for a lock that is never released"
                        : "a request never returns: no request finished in " + RequestWatch.SPIN_MS / 1000 + " s while some thread ran")
                        + " (" + now + " requests had returned)");
            }
        }
    }

    /**
     * Runs {@link StoreCrashTrial#main} on a store of class {@code storeClass} in {@code root} in a separate JVM,
     * kills it with SIGKILL after {@code lines} committed requests, reopens the store and checks
     * that every committed event is there at its version or later (unless its delete was under
     * way), that none is half-written, and that no id is given twice. Returns what it saw. A request
     * that throws is reported, not judged: whether a racy store throws in this run is luck, and its
     * races are Lincheck's to judge, every run; the crash test judges what is on disk.
     */
    public static String crash(String storeClass, Path root, int lines) throws Exception {
        return new StoreCrashTrial().run(storeClass, root, lines);
    }

    /** What a load saw: "absent", "original", "moved", or "torn ..." (half a modification). */
    public static String seen(Optional<Event> e) {
        if (e.isEmpty()) {
            return "absent";
        }
        Map<String, String> got = e.get().attributes;
        if (got.equals(ORIGINAL)) {
            return "original";
        }
        Map<String, String> moved = new HashMap<>(ORIGINAL);
        moved.putAll(MOVE);
        return got.equals(moved) ? "moved" : "torn " + got;
    }

}
