package handofflab.calendar;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * McBride &amp; Ferrell's experiment: create n events, edit all n, delete all n, each request a
 * task; over the store (the kit's {@link EventStore} with each list kind, or {@link SqliteEvents}),
 * the thread management (a pool of x threads; a thread spawned per task, at most x running; a
 * virtual thread per task, at most x running, which the paper could not try), and n.
 *
 * <p>The {@code database} workload runs the same three phases over the whole database
 * ({@link Database}: the kit's {@link CalendarDatabase} with each list kind, or {@link SqliteDatabase}): create n users
 * and n / 16 groups; join each user to a group and add an event to each user's calendar (2 n requests, interleaved);
 * delete every user and group in a shuffled order, so that deletes of a group and of its members run at once
 * (n + n / 16 requests). Its CSV has the same columns; "edit" is the joins and events.
 *
 * <p>{@code java handofflab.calendar.CalendarBench OUT.csv REPS N,N,.. STORE,STORE,.. MODE,MODE,.. X [events|database]}
 * writes one CSV row per run and prints a progress line. Each repetition runs every point once,
 * in a shuffled order, so that a slow minute of a noisy machine is spread over all of them.
 * A run whose requests do not all succeed, or whose store is wrong afterwards, has status
 * other than "ok" and is kept, never dropped.
 */
public final class CalendarBench {
    static final Map<String, String> EVENT = Map.of("date", "2016-04-16", "time", "10:00", "name", "CoCal");
    static final Map<String, String> MOVE = Map.of("date", "2016-04-17", "time", "14:00");

    private CalendarBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6 && args.length != 7 || args.length == 7 && !List.of("events", "database").contains(args[6])) {
            System.err.println("usage: CalendarBench OUT.csv REPS N,N,.. STORE,.. pool|spawn|virtual,.. THREADS [events|database]");
            System.exit(2);
        }
        Workload workload = args.length == 7 && args[6].equals("database") ? CalendarBench::runDatabase : CalendarBench::run;
        Path out = Paths.get(args[0]);
        int reps = Integer.parseInt(args[1]);
        int[] ns = Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray();
        List<String> stores = Arrays.asList(args[3].split(","));
        List<String> modes = new ArrayList<>(Arrays.asList(args[4].split(",")));
        int threads = Integer.parseInt(args[5]);
        if (modes.contains("virtual") && Runtime.version().feature() < 21) {
            System.out.println("SKIP virtual threads: this JVM is " + Runtime.version() + "; they need 21 or newer");
            modes.remove("virtual");
        }
        List<String[]> points = new ArrayList<>();
        for (String store : stores) {
            for (String mode : modes) {
                for (int n : ns) {
                    points.add(new String[] {store, mode, Integer.toString(n)});
                }
            }
        }
        int warm = Math.min(512, Arrays.stream(ns).max().orElse(512));  // no longer than the largest point
        for (String store : stores) {  // warm the JIT on each store before anything is measured
            workload.run(store, modes.get(0), warm, threads, new double[3]);
        }
        Random shuffle = new Random(62);
        int total = reps * points.size(), done = 0;
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
            csv.println("store,threads,n,rep,create_s,edit_s,delete_s,total_s,cores,status");
            int cores = Runtime.getRuntime().availableProcessors();   // the CPUs this JVM may run on (affinity included)
            for (int rep = 1; rep <= reps; rep++) {
                List<String[]> order = new ArrayList<>(points);
                Collections.shuffle(order, shuffle);
                for (String[] p : order) {
                    double[] s = new double[3];
                    String status;
                    try {
                        status = workload.run(p[0], p[1], Integer.parseInt(p[2]), threads, s);
                    } catch (Exception e) {
                        status = "error: " + String.valueOf(e.getMessage()).replace(',', ';').replace('\n', ' ');
                    }
                    csv.printf("%s,%s,%s,%d,%.6f,%.6f,%.6f,%.6f,%d,%s%n", p[0], p[1], p[2], rep, s[0], s[1], s[2],
                            s[0] + s[1] + s[2], cores, status);
                    csv.flush();
                    done++;
                    System.out.printf("[%d/%d] %s %s n=%s rep %d: %.3f s %s%n", done, total, p[0], p[1], p[2], rep,
                            s[0] + s[1] + s[2], status);
                }
            }
        }
    }

    /** One run of a workload: the three phases' seconds into {@code seconds}; "ok", or what went wrong. */
    interface Workload {
        String run(String store, String mode, int n, int threads, double[] seconds) throws Exception;
    }

    /** One run: the three phases' seconds into {@code seconds}; "ok", or what went wrong. */
    static String run(String store, String mode, int n, int threads, double[] seconds) throws Exception {
        return inFreshFolder(mode, threads, (dir, pool) -> {
            try (Events events = open(store, dir, threads)) {
                return runEvents(events, pool, mode, n, threads, seconds);
            }
        });
    }

    private static String runEvents(Events events, ExecutorService pool, String mode, int n, int threads, double[] seconds)
            throws Exception {
        int[] ids = new int[n];
        AtomicInteger failed = new AtomicInteger();
        long t0 = System.nanoTime();
        runAll(pool, mode, n, threads, i -> ids[i] = events.create(EVENT), failed);
        long t1 = System.nanoTime();
        runAll(pool, mode, n, threads, i -> {
            if (events.modify(ids[i], MOVE) != Events.Outcome.OK) {
                failed.incrementAndGet();
            }
        }, failed);
        long t2 = System.nanoTime();
        String edited = sample(events, ids, true);  // checked between phases, outside the timings
        long t3 = System.nanoTime();
        runAll(pool, mode, n, threads, i -> {
            if (events.delete(ids[i]) != Events.Outcome.OK) {
                failed.incrementAndGet();
            }
        }, failed);
        long t4 = System.nanoTime();
        seconds[0] = (t1 - t0) / 1e9;
        seconds[1] = (t2 - t1) / 1e9;
        seconds[2] = (t4 - t3) / 1e9;
        String gone = sample(events, ids, false);
        if (failed.get() > 0) {
            return "failed: " + failed.get() + " requests";
        }
        return !edited.isEmpty() ? edited : !gone.isEmpty() ? gone : "ok";
    }

    /** What one run does in its fresh folder, with the pool its thread management uses (null: none). */
    interface InFolder {
        String run(Path dir, ExecutorService pool) throws Exception;
    }

    /** Runs {@code body} in a fresh temporary folder, removed afterwards, with a pool of {@code threads} for "pool". */
    private static String inFreshFolder(String mode, int threads, InFolder body) throws Exception {
        Path dir = Files.createTempDirectory("calendar-bench-");
        // A pool lives as long as the store, as an executor in a server does: made before the clock starts.
        ExecutorService pool = mode.equals("pool") ? Executors.newFixedThreadPool(threads) : null;
        try {
            return body.run(dir, pool);
        } finally {
            if (pool != null) {
                pool.shutdown();
            }
            removeTree(dir);
        }
    }

    /** The database workload's run (see the class comment): the three phases' seconds; "ok", or what went wrong. */
    static String runDatabase(String store, String mode, int n, int threads, double[] seconds) throws Exception {
        return inFreshFolder(mode, threads, (dir, pool) -> {
            try (Database db = openDatabase(store, dir, threads)) {
                return runDatabase(db, pool, mode, n, threads, seconds);
            }
        });
    }

    static String runDatabase(Database db, ExecutorService pool, String mode, int n, int threads, double[] seconds)
            throws Exception {
        int g = Math.max(1, n / 16);
        int[] users = new int[n], groups = new int[g], calendars = new int[n];
        AtomicInteger failed = new AtomicInteger();
        long t0 = System.nanoTime();
        runAll(pool, mode, n + g, threads, i -> {
            if (i < n) {
                users[i] = db.createUser("user " + i);
            } else {
                groups[i - n] = db.createGroup("group " + (i - n));
            }
        }, failed);
        long t1 = System.nanoTime();
        for (int i = 0; i < n; i++) {  // outside the timings: where each user's event goes
            calendars[i] = Integer.parseInt(db.user(users[i]).orElseThrow().attributes.get("calendar"));
        }
        long t2 = System.nanoTime();
        runAll(pool, mode, 2 * n, threads, i -> {   // a join and an event, user by user
            boolean ok = i % 2 == 0 ? db.join(groups[i / 2 % g], users[i / 2]) == Events.Outcome.OK
                    : db.addEvent(calendars[i / 2], EVENT) >= 0;
            if (!ok) {
                failed.incrementAndGet();
            }
        }, failed);
        long t3 = System.nanoTime();
        String linked = linked(db, users, groups, calendars);  // checked between phases, outside the timings
        List<Integer> order = new ArrayList<>();   // users and groups, shuffled: a group goes while its members do
        for (int i = 0; i < n + g; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(n));
        long t4 = System.nanoTime();
        runAll(pool, mode, n + g, threads, k -> {
            int i = order.get(k);
            if ((i < n ? db.deleteUser(users[i]) : db.deleteGroup(groups[i - n])) != Events.Outcome.OK) {
                failed.incrementAndGet();
            }
        }, failed);
        long t5 = System.nanoTime();
        seconds[0] = (t1 - t0) / 1e9;
        seconds[1] = (t3 - t2) / 1e9;
        seconds[2] = (t5 - t4) / 1e9;
        if (failed.get() > 0) {
            return "failed: " + failed.get() + " requests";
        }
        List<String> problems = db.problems();
        Map<String, Integer> left = db.counts();
        return !linked.isEmpty() ? linked
                : !problems.isEmpty() ? "wrong: " + problems.size() + " broken references; first: " + problems.get(0)
                : left.values().stream().anyMatch(c -> c != 0) ? "wrong: left after every delete: " + left
                : "ok";
    }

    /** Empty when each group lists exactly its users and each user's calendar holds exactly its one event. */
    private static String linked(Database db, int[] users, int[] groups, int[] calendars) throws IOException {
        int g = groups.length;
        for (int k = 0; k < g; k++) {
            java.util.Set<String> want = new java.util.TreeSet<>();
            for (int i = k; i < users.length; i += g) {
                want.add("member." + users[i]);
            }
            java.util.Set<String> got = new java.util.TreeSet<>(db.group(groups[k]).orElseThrow().attributes.keySet());
            got.removeIf(a -> !a.startsWith("member."));
            if (!got.equals(want)) {
                return "wrong: group " + groups[k] + " lists " + got.size() + " members, not its " + want.size();
            }
        }
        for (int i = 0; i < users.length; i++) {
            int events = db.loadCalendar(calendars[i]).map(List::size).orElse(-1);
            if (events != 1) {
                return "wrong: user " + users[i] + "'s calendar holds " + events + " events, not 1";
            }
        }
        return "";
    }

    static Database openDatabase(String store, Path dir, int threads) throws IOException {
        return store.equals("SQLite") ? new SqliteDatabase(dir.resolve("calendar.db"), Math.min(threads, 8))
                : new CalendarDatabase(dir, store);
    }

    static Events open(String store, Path dir, int threads) throws IOException {
        return store.equals("SQLite") ? new SqliteEvents(dir.resolve("events.db"), Math.min(threads, 8))
                : new EventStore(dir, store);
    }

    /** Empty when every event is as it should be: moved (after the edits) or gone (after the deletes). */
    private static String sample(Events events, int[] ids, boolean present) throws IOException {
        for (int id : ids) {
            boolean ok = present ? events.load(id).map(e -> e.attributes.get("time").equals("14:00")).orElse(false)
                    : events.load(id).isEmpty();
            if (!ok) {
                return "wrong: event " + id + (present ? " not moved" : " not deleted");
            }
        }
        return "";
    }

    interface Request {
        void run(int i) throws Exception;
    }

    /** n requests as n tasks, managed as {@code mode} says (on {@code pool} for "pool"), at most {@code threads} at once. */
    static void runAll(ExecutorService pool, String mode, int n, int threads, Request request, AtomicInteger failed)
            throws Exception {
        CountDownLatch finished = new CountDownLatch(n);
        Runnable[] tasks = new Runnable[n];
        for (int i = 0; i < n; i++) {
            int k = i;
            tasks[i] = () -> {
                try {
                    request.run(k);
                } catch (Exception e) {
                    failed.incrementAndGet();
                } finally {
                    finished.countDown();
                }
            };
        }
        if (pool != null) {
            for (Runnable t : tasks) {
                pool.execute(t);
            }
            finished.await();
            return;
        }
        ThreadFactory factory = mode.equals("virtual") ? virtualThreads() : Thread::new;
        Semaphore running = new Semaphore(threads);  // the paper's limit on threads running at once
        for (Runnable t : tasks) {
            running.acquire();
            factory.newThread(() -> {
                try {
                    t.run();
                } finally {
                    running.release();
                }
            }).start();
        }
        finished.await();
    }

    private static ThreadFactory virtualThreads() throws ReflectiveOperationException {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);  // Java 21; this module compiles for 11
        return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
    }

    private static void removeTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
