package handofflab.benchmarks;

import handofflab.handoffs.Handoff;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * What sleeping costs and what it saves, for the handoffs {@link HandoffThroughput} races, made the same way:
 * <ul>
 *   <li><b>latency</b>: connections arrive one at a time, the acceptor sleeping between them (a gap drawn from an
 *   exponential distribution, as independent arrivals have), and each id's time from just before its put to its
 *   take is recorded (HdrHistogram: p50, p99, p99.9, max). A worker that sleeps when idle pays its wake-up here; one
 *   that polls pays less, and</li>
 *   <li><b>idle CPU</b>: then nothing arrives, and the workers' own CPU time (ThreadMXBean) over a few seconds of
 *   wall time says how much of a core they burn waiting: a sleeper's is nothing, a poller's is not.</li>
 * </ul>
 * JMH measures a benchmark method's throughput; neither of these is one, so this is a plain program that
 * {@code ./lab bench handoffs} runs in the same run as JMH, over the same handoffs and widths. Every id must be
 * taken exactly once, or the point fails instead of reporting a number.
 *
 * <p>Usage: {@code SleepingCost IMPL,... WORKERS,... ITEMS GAP_MICROS IDLE_SECONDS OUT.csv}
 */
public final class SleepingCost {
    private static final int STOP = 0;  // as HandoffThroughput's: never an id

    private SleepingCost() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: SleepingCost IMPL,... WORKERS,... ITEMS GAP_MICROS IDLE_SECONDS OUT.csv");
            System.exit(2);
        }
        int items = Integer.parseInt(args[2]);
        double gapMicros = Double.parseDouble(args[3]), idleSeconds = Double.parseDouble(args[4]);
        Path out = Path.of(args[5]);
        boolean failed = false;
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out))) {
            csv.println("impl,workers,status,items,gap_us,p50_us,p99_us,p999_us,max_us,idle_cores,detail");
            for (String impl : args[0].split(",")) {
                for (String w : args[1].split(",")) {
                    int workers = Integer.parseInt(w);
                    String row;
                    try {
                        Point p = measure(impl, workers, items, gapMicros, idleSeconds);
                        row = String.format("%s,%d,ok,%d,%.1f,%.2f,%.2f,%.2f,%.2f,%.5f,", impl, workers, items,
                                gapMicros, p.micros(0.50), p.micros(0.99), p.micros(0.999),
                                p.latency.getMaxValue() / 1000.0, p.idleCores);
                    } catch (Exception | AssertionError e) {
                        failed = true;
                        String why = String.valueOf(e.getMessage()).replace('"', '\'').replace('\n', ' ');
                        row = impl + "," + workers + ",failed," + items + "," + gapMicros + ",,,,,,\"" + why + "\"";
                    }
                    csv.println(row);
                    csv.flush();
                    System.out.println("sleeping-cost " + row);  // one line a point: ./lab shows it as progress
                }
            }
        } catch (IOException e) {
            System.err.println("cannot write " + out + ": " + e.getMessage());
            System.exit(2);
        }
        System.exit(failed ? 1 : 0);
    }

    /** One point's put-to-take latencies (ns) and its idle workers' CPU (cores). */
    static final class Point {
        final Histogram latency;
        final double idleCores;

        Point(Histogram latency, double idleCores) {
            this.latency = latency;
            this.idleCores = idleCores;
        }

        double micros(double quantile) {
            return latency.getValueAtPercentile(100 * quantile) / 1000.0;
        }
    }

    static Point measure(String impl, int workers, int items, double gapMicros, double idleSeconds) throws Exception {
        Handoff<Integer> h = HandoffThroughput.create(impl, workers);
        int warm = Math.max(items / 5, 200), total = warm + items;  // the first ids warm the JIT and are not recorded
        long[] stampedAt = new long[total + 1];  // written before each put, read after the take: the handoff orders it
        AtomicIntegerArray takes = new AtomicIntegerArray(total + 1);
        AtomicLong taken = new AtomicLong();
        List<Thread> pool = new ArrayList<>();
        List<Histogram> recorded = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            Histogram mine = new Histogram(3_600_000_000_000L, 3);  // ns, up to an hour, 3 significant digits
            recorded.add(mine);
            Thread t = new Thread(() -> {
                try {
                    for (int id = h.take(); id != STOP; id = h.take()) {
                        long now = System.nanoTime();
                        if (id > warm) {
                            mine.recordValue(Math.max(0, now - stampedAt[id]));
                        }
                        takes.incrementAndGet(id);
                        taken.incrementAndGet();
                    }
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, "worker-" + i);
            t.setDaemon(true);
            pool.add(t);
            t.start();
        }
        SplittableRandom gaps = new SplittableRandom(1);
        for (int id = 1; id <= total; id++) {
            stampedAt[id] = System.nanoTime();
            h.put(id);
            LockSupport.parkNanos((long) (-Math.log(1 - gaps.nextDouble()) * gapMicros * 1000));  // exponential gap
        }
        awaitTaken(taken, total, impl, failures);

        double idleCores = idleCores(pool, idleSeconds);
        stop(h, pool, impl);
        checkExactlyOnce(impl, takes, total, failures);
        Histogram all = new Histogram(3_600_000_000_000L, 3);
        recorded.forEach(all::add);
        return new Point(all, idleCores);
    }

    /** Idle: nothing to take; lets the workers settle into their waiting, then counts their CPU, in cores. */
    private static double idleCores(List<Thread> pool, double idleSeconds) throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Thread.sleep(500);
        long cpuBefore = cpu(mx, pool), wallBefore = System.nanoTime();
        Thread.sleep((long) (idleSeconds * 1000));
        return (cpu(mx, pool) - cpuBefore) / (double) (System.nanoTime() - wallBefore);
    }

    /** One STOP per worker, and every worker gone within 10 s. */
    private static void stop(Handoff<Integer> h, List<Thread> pool, String impl) throws InterruptedException {
        for (int i = 0; i < pool.size(); i++) {
            h.put(STOP);
        }
        for (Thread t : pool) {
            t.join(10_000);
            if (t.isAlive()) {
                throw new IllegalStateException(impl + ": " + t.getName() + " did not stop");
            }
        }
    }

    /** No worker failed, and ids 1 to {@code total} were each taken exactly once. */
    private static void checkExactlyOnce(String impl, AtomicIntegerArray takes, int total, List<Throwable> failures) {
        if (!failures.isEmpty()) {
            throw new IllegalStateException(impl + ": a worker failed: " + failures.get(0));
        }
        for (int id = 1; id <= total; id++) {
            if (takes.get(id) != 1) {
                throw new IllegalStateException(impl + " is not exactly once: id " + id + " taken " + takes.get(id)
                        + " times");
            }
        }
    }

    /** Waits for every id to be taken; none taken for 5 s is a loss or a deadlock, said with where each worker is. */
    private static void awaitTaken(AtomicLong taken, long total, String impl, List<Throwable> failures)
            throws InterruptedException {
        long seen = -1, since = System.nanoTime();
        while (taken.get() < total) {
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    throw new IllegalStateException(impl + ": a worker failed: " + failures.get(0));
                }
            }
            long now = taken.get();
            if (now != seen) {
                seen = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > 5_000_000_000L) {
                throw new IllegalStateException(impl + " lost ids or deadlocked: " + (total - now) + " of " + total
                        + " not taken, none for 5 s");
            }
            Thread.sleep(1);
        }
    }

    private static long cpu(ThreadMXBean mx, List<Thread> pool) {
        long sum = 0;
        for (Thread t : pool) {
            sum += Math.max(0, mx.getThreadCpuTime(t.getId()));
        }
        return sum;
    }
}
