package handofflab.benchmarks;

import handofflab.handoffs.ProbeCountingPht;
import handofflab.handoffs.ScanCountingPipes;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures what the papers' theorems bound, on the kit's real handoffs, for the
 * notebooks {@code pht_theorems.py}, {@code pht_conflicts.py} and {@code pipes_scan.py}.
 * Each mode prints CSV on standard output:
 *
 * <pre>
 * pht-inserts  M REPS            n,alpha,puts,mean_probes      (Theorem 1: an insert into a table holding n)
 * pht-searches M REPS N1,N2,..   n,alpha,takes,mean_probes     (Theorem 2: a take from a table holding n)
 * pht-conflicts M K TR_US ITEMS  worker,start_ns,end_ns,slot,claim_met,t_r_ns   one row per take (Theorem 3)
 * pipes-scan W TR_US GAP_US ITEMS  free,alpha,puts,mean_probes,waited,t_r_us,gap_us   (ICN 2001, Theorem 3)
 * </pre>
 * Keys are pseudo-random (a socket's identity hash is), from a fixed seed, so a run repeats.
 * The concurrent modes exit 1 if any connection was not taken exactly once.
 */
public final class Theorems {
    private Theorems() {
    }

    /** A connection: an id to check exactly-once with, and a pseudo-random hash code. */
    static final class Conn {
        final int id, hash;

        Conn(int id, int hash) {
            this.id = id;
            this.hash = hash;
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    public static void main(String[] args) throws Exception {
        try {
            switch (args.length == 0 ? "" : args[0]) {
                case "pht-inserts":
                    phtInserts(prime(args[1]), positive(args[2]));
                    return;
                case "pht-searches":
                    phtSearches(prime(args[1]), positive(args[2]), args[3]);
                    return;
                case "pht-conflicts":
                    phtConflicts(prime(args[1]), positive(args[2]), Long.parseLong(args[3]), positive(args[4]));
                    return;
                case "pipes-scan":
                    pipesScan(positive(args[1]), Long.parseLong(args[2]), Long.parseLong(args[3]), positive(args[4]));
                    return;
                default:
                    usage("unknown mode '" + (args.length == 0 ? "" : args[0]) + "'");
            }
        } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
            usage("bad arguments: " + e.getMessage());
        }
    }

    private static void usage(String why) {
        System.err.println(why + "\nusage: Theorems pht-inserts M REPS | pht-searches M REPS N1,N2,.. | "
                + "pht-conflicts M K TR_US ITEMS | pipes-scan W TR_US GAP_US ITEMS");
        System.exit(2);
    }

    private static int positive(String s) {
        int v = Integer.parseInt(s);
        if (v < 1) {
            throw new NumberFormatException("expected a positive number, got " + s);
        }
        return v;
    }

    private static int prime(String s) {
        int m = positive(s);
        if (!handofflab.handoffs.ParallelHashTable.isPrime(m)) {
            throw new NumberFormatException("the PHT needs a prime number of slots, got " + s);
        }
        return m;
    }

    /** Theorem 1: fill REPS fresh tables one put at a time; the k-th put finds n = k - 1 items. */
    static void phtInserts(int m, int reps) throws InterruptedException {
        long[] probes = new long[m];
        SplittableRandom random = new SplittableRandom(1);
        for (int r = 0; r < reps; r++) {
            ProbeCountingPht<Conn> table = new ProbeCountingPht<>(m);
            for (int n = 0; n < m; n++) {
                table.put(new Conn(n, random.nextInt()));
                probes[n] += table.lastProbes();
            }
        }
        System.out.println("n,alpha,puts,mean_probes");
        for (int n = 0; n < m; n++) {
            System.out.printf("%d,%.6f,%d,%.6f%n", n, (double) n / m, reps, (double) probes[n] / reps);
        }
    }

    /** Theorem 2: hold a table at n items; each take is followed by a put, so every take sees n. */
    static void phtSearches(int m, int reps, String loads) throws InterruptedException {
        SplittableRandom random = new SplittableRandom(2);
        System.out.println("n,alpha,takes,mean_probes");
        for (String load : loads.split(",")) {
            int n = Integer.parseInt(load.trim());
            if (n < 1 || n >= m) {
                throw new NumberFormatException("a load must be 1.." + (m - 1) + ", got " + n);
            }
            ProbeCountingPht<Conn> table = new ProbeCountingPht<>(m);
            for (int i = 0; i < n; i++) {
                table.put(new Conn(i, random.nextInt()));
            }
            long probes = 0;
            for (int r = 0; r < reps; r++) {
                table.take();
                probes += table.lastProbes();
                table.put(new Conn(r, random.nextInt()));
            }
            System.out.printf("%d,%.6f,%d,%.6f%n", n, (double) n / m, reps, (double) probes / reps);
        }
    }

    /**
     * Theorem 3: K workers take and serve t_r each; one acceptor puts ITEMS as fast as the table lets
     * it. Each take is one row: its retrieval (first probe to claim), the slot of its first probe,
     * whether its claim met another's, and the service time that really followed (a park overshoots:
     * predictions use what happened, not the nominal t_r).
     */
    static void phtConflicts(int m, int k, long serviceMicros, int items) throws InterruptedException {
        ProbeCountingPht<Conn> table = new ProbeCountingPht<>(m);
        Conn stop = new Conn(-1, 0);
        AtomicLong idSum = new AtomicLong(), served = new AtomicLong();
        Thread[] workers = new Thread[k];
        StringBuilder[] rows = new StringBuilder[k];
        for (int w = 0; w < k; w++) {
            int worker = w;
            rows[w] = new StringBuilder();
            workers[w] = new Thread(() -> {
                try {
                    for (Conn c = table.take(); c != stop; c = table.take()) {
                        idSum.addAndGet(c.id);
                        served.incrementAndGet();
                        long began = System.nanoTime();
                        serve(serviceMicros);
                        rows[worker].append(worker).append(',').append(table.lastRetrievalStart()).append(',')
                                .append(table.lastRetrievalEnd()).append(',').append(table.lastFirstSlot()).append(',')
                                .append(table.lastConflicted() ? 1 : 0).append(',').append(System.nanoTime() - began)
                                .append('\n');
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            workers[w].start();
        }
        SplittableRandom random = new SplittableRandom(3);
        long start = System.nanoTime();
        for (int id = 1; id <= items; id++) {
            table.put(new Conn(id, random.nextInt()));
        }
        while (served.get() < items) {  // a PHT is no queue: a stop put now could be taken before a connection
            Thread.sleep(1);
        }
        for (int w = 0; w < k; w++) {
            table.put(stop);
        }
        for (Thread t : workers) {
            t.join();
        }
        long takes = table.takes() - k;  // the stop markers are not connections
        checkExactlyOnce("pht-conflicts", takes, idSum.get(), items);
        StringBuilder out = new StringBuilder("worker,start_ns,end_ns,slot,claim_met,t_r_ns\n");
        for (StringBuilder r : rows) {
            out.append(r);
        }
        System.out.print(out);
    }

    /** The pipe design's scan: W workers serve t_r each; the acceptor puts with exponential gaps (mean GAP_US). */
    static void pipesScan(int w, long serviceMicros, long gapMicros, int items) throws InterruptedException {
        ScanCountingPipes<Integer> pipes = new ScanCountingPipes<>(w);
        AtomicLong idSum = new AtomicLong(), served = new AtomicLong();
        LongAdder serviceNanos = new LongAdder();
        Thread[] workers = new Thread[w];
        for (int i = 0; i < w; i++) {
            workers[i] = new Thread(() -> {
                try {
                    for (int id = pipes.take(); id != 0; id = pipes.take()) {
                        idSum.addAndGet(id);
                        served.incrementAndGet();
                        long began = System.nanoTime();
                        serve(serviceMicros);
                        serviceNanos.add(System.nanoTime() - began);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            workers[i].start();
        }
        long[] puts = new long[w + 1], probes = new long[w + 1], waited = new long[w + 1];
        SplittableRandom random = new SplittableRandom(4);
        // Poisson arrivals on an absolute schedule: a park that wakes late makes the next gap shorter,
        // so the load is the one asked for (gap by gap, each park overshoots by about 0.1 ms)
        long first = System.nanoTime(), due = first;
        for (int id = 1; id <= items; id++) {
            due += (long) (-Math.log(1 - random.nextDouble()) * gapMicros * 1000);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                serve(TimeUnit.NANOSECONDS.toMicros(wait));
            }
            pipes.put(id);
            int free = pipes.lastFreeAtStart();
            puts[free]++;
            probes[free] += pipes.lastProbes();
            waited[free] += free == 0 ? 1 : 0;
        }
        double gapUs = (System.nanoTime() - first) / 1e3 / items;  // the mean gap the arrivals really had
        for (int i = 0; i < w; i++) {
            pipes.put(0);  // each worker's stop, one per pipe
        }
        for (Thread t : workers) {
            t.join();
        }
        checkExactlyOnce("pipes-scan", served.get(), idSum.get(), items);
        double serviceUs = serviceNanos.sum() / 1e3 / items;  // the mean service a worker really gave
        System.out.println("free,alpha,puts,mean_probes,waited,t_r_us,gap_us");
        for (int free = 0; free <= w; free++) {
            if (puts[free] > 0) {
                System.out.printf("%d,%.6f,%d,%.6f,%d,%.1f,%.1f%n", free, (double) free / w, puts[free],
                        (double) probes[free] / puts[free], waited[free], serviceUs, gapUs);
            }
        }
    }

    private static void serve(long micros) {
        long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(micros);
        for (long left = micros * 1000; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);  // may return early: park again for what is left
        }
    }

    private static void checkExactlyOnce(String mode, long taken, long idSum, int items) {
        long expected = (long) items * (items + 1) / 2;
        if (taken != items || idSum != expected) {
            System.err.printf("%s: NOT exactly once: %d taken (expected %d), id sum %d (expected %d)%n",
                    mode, taken, items, idSum, expected);
            System.exit(1);
        }
    }
}
