package handofflab.benchmarks;

import handofflab.handoffs.Handoffs;
import handofflab.handoffs.Ring;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * How full is the shared buffer, and how fast does it drain, as workers are
 * added? One acceptor puts ids as fast as it can; each worker takes one and
 * "serves" it for a fixed service time (parked, like the papers' simulated
 * work t_r). Before each put the acceptor samples the occupancy.
 *
 * <p>{@code java handofflab.benchmarks.BufferOccupancy OUTDIR CAPACITY SERVICE_MICROS ITEMS W1,W2,...}
 * writes OUTDIR/throughput.csv and OUTDIR/occupancy.csv, and exits 1 if any id
 * was not taken exactly once.
 */
public final class BufferOccupancy {
    private BufferOccupancy() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: BufferOccupancy OUTDIR CAPACITY SERVICE_MICROS ITEMS W1,W2,...");
            System.exit(2);
        }
        Path out = Paths.get(args[0]);
        int capacity = Integer.parseInt(args[1]);
        long serviceNanos = Long.parseLong(args[2]) * 1000;
        int items = Integer.parseInt(args[3]);
        Files.createDirectories(out);
        try (PrintWriter tp = new PrintWriter(Files.newBufferedWriter(out.resolve("throughput.csv")));
             PrintWriter occ = new PrintWriter(Files.newBufferedWriter(out.resolve("occupancy.csv")))) {
            tp.println("workers,capacity,service_us,items,seconds,throughput_per_s,mean_occupancy,full_fraction,served_us");
            occ.println("workers,occupancy,fraction");
            for (String w : args[4].split(",")) {
                run(Integer.parseInt(w), capacity, serviceNanos, items, tp, occ);
            }
        }
    }

    static void run(int workers, int capacity, long serviceNanos, int items, PrintWriter tp, PrintWriter occ)
            throws InterruptedException, IOException {
        Ring<Integer> buffer = (Ring<Integer>) Handoffs.<Integer>create("MonitorBuffer", capacity);
        BitSet seen = new BitSet(items);
        long[] histogram = new long[capacity + 1];
        List<Thread> pool = new ArrayList<>();
        LongAdder servedNanos = new LongAdder();  // what the services really lasted: a park wakes late
        for (int i = 0; i < workers; i++) {
            Thread t = new Thread(() -> {
                try {
                    for (int id = buffer.take(); id >= 0; id = buffer.take()) {
                        synchronized (seen) {
                            if (seen.get(id)) {
                                throw new IllegalStateException("NoDuplicate broken: " + id);
                            }
                            seen.set(id);
                        }
                        long began = System.nanoTime();
                        LockSupport.parkNanos(serviceNanos);  // serve the connection
                        servedNanos.add(System.nanoTime() - began);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            pool.add(t);
            t.start();
        }
        long start = System.nanoTime();
        for (int id = 0; id < items; id++) {
            histogram[buffer.size()]++;
            buffer.put(id);
        }
        for (int i = 0; i < workers; i++) {
            buffer.put(-1);  // one stop marker per worker
        }
        for (Thread t : pool) {
            t.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (seen.cardinality() != items) {
            System.err.println("NoLoss broken: " + (items - seen.cardinality()) + " ids never taken");
            System.exit(1);
        }
        double mean = 0;
        for (int k = 0; k <= capacity; k++) {
            mean += k * (double) histogram[k] / items;
            occ.printf("%d,%d,%.6f%n", workers, k, histogram[k] / (double) items);
        }
        tp.printf("%d,%d,%d,%d,%.4f,%.1f,%.3f,%.4f,%.1f%n", workers, capacity, serviceNanos / 1000, items, seconds,
                items / seconds, mean, histogram[capacity] / (double) items, servedNanos.sum() / 1e3 / items);
        System.err.printf("workers=%d: %.0f connections/s%n", workers, items / seconds);
    }
}
