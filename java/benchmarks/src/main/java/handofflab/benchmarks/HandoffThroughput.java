package handofflab.benchmarks;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.MpmcArrayQueue;
import org.jctools.queues.SpmcArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One acceptor, N workers: how many items per microsecond a handoff moves, the kit's
 * designs beside what a Java programmer would pick instead (the JDK's blocking queues
 * and JCTools' array queues). {@code ./lab bench handoffs} runs it and sets each
 * result against ArrayBlockingQueue at the same N, measured in the same run.
 *
 * <p>Why batches and not JMH's asymmetric thread groups: a group's taker would block
 * forever in take() when JMH stops the putter at the end of an iteration. Here the
 * benchmark thread is the acceptor; it puts a batch of {@link #BATCH} items and waits
 * until the workers (our own threads, started once per trial) have taken them all, so
 * every measured item crossed the handoff. Every item is an id; at the end of the
 * trial the workers' counts and id sums must match what was put — a benchmark that
 * loses or duplicates an item fails instead of reporting a number.
 *
 * <p>Capacities are equal where the design has one: 1031 slots, a prime, as the PHT's
 * double hashing needs. How a kit handoff is sized (slots, or one channel per worker) is the
 * catalog's {@code sized_by}, sent by {@code ./lab bench handoffs} as
 * {@code -Dhandofflab.sized_by=CLASS=slots,...}; at most {@link #BATCH} items are ever in flight, so the unbounded
 * queues hold no more than the bounded ones. JCTools' queues do not block: they are
 * wrapped with spin, then yield, then a 10 µs park, which is how such queues are used
 * in practice and costs CPU that a monitor's wait does not.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class HandoffThroughput {
    static final int BATCH = 1000;
    static final int CAPACITY = 1031;  // prime, so the PHT's double hashing visits every slot
    private static final int STOP = 0;  // the id that tells a worker to stop: never one of the batch's 1..BATCH

    /** The JDK's and JCTools' queues, and the kit's handoff classes: ./lab bench handoffs passes them (-p impl=...). */
    @Param({"ArrayBlockingQueue"})
    public String impl;

    @Param({"1", "2", "4"})
    public int workers;

    private Handoff<Integer> handoff;
    private final Integer[] ids = new Integer[BATCH];
    private final AtomicLong taken = new AtomicLong();
    private volatile long target;
    private volatile Thread acceptor;
    private final List<Worker> pool = new ArrayList<>();
    private long put;  // ids put so far, BATCH at a time

    private static final class Worker extends Thread {
        final HandoffThroughput b;
        long count, sum;
        volatile Throwable failure;

        Worker(HandoffThroughput b, int i) {
            super("worker-" + i);
            this.b = b;
            setDaemon(true);
        }

        @Override
        public void run() {
            try {
                while (true) {
                    int id = b.handoff.take();  // compared by value: see the note on STOP
                    if (id == STOP) {
                        return;
                    }
                    count++;
                    sum += id;
                    if (b.taken.incrementAndGet() == b.target) {
                        LockSupport.unpark(b.acceptor);
                    }
                }
            } catch (Throwable t) {
                failure = t;
                LockSupport.unpark(b.acceptor);
            }
        }
    }

    @Setup(Level.Trial)
    public void start() {
        handoff = create(impl, workers);
        for (int i = 0; i < BATCH; i++) {
            ids[i] = i + 1;  // never STOP
        }
        for (int i = 0; i < workers; i++) {
            Worker w = new Worker(this, i);
            pool.add(w);
            w.start();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void handOffBatch() throws InterruptedException {
        acceptor = Thread.currentThread();
        long goal = target + BATCH;
        target = goal;  // before the first put: a worker that takes the last id sees it
        for (Integer id : ids) {
            handoff.put(id);
        }
        put += BATCH;
        long seen = taken.get(), lastProgress = System.nanoTime();
        while (seen < goal) {
            LockSupport.parkNanos(this, 100_000_000L);  // woken by the worker that takes the last id
            for (Worker w : pool) {
                if (w.failure != null) {
                    throw new IllegalStateException(w.getName() + " failed", w.failure);
                }
            }
            long now = taken.get();
            if (now != seen) {
                seen = now;
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > 5_000_000_000L) {  // measured, not counted: park may return early
                StringBuilder where = new StringBuilder();
                for (Worker w : pool) {  // what each worker is doing: the first thing to look at
                    where.append("\n  ").append(w.getName()).append(' ').append(w.getState());
                    for (StackTraceElement e : w.getStackTrace()) {
                        where.append("\n    at ").append(e);
                    }
                }
                throw new IllegalStateException(impl + " lost ids or deadlocked: " + (goal - now)
                        + " of this batch not taken after 5 s (goal " + goal + ", taken " + now + ", put " + put
                        + ")" + where);
            }
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        for (int i = 0; i < workers; i++) {
            handoff.put(STOP);
        }
        long count = 0, sum = 0;
        for (Worker w : pool) {
            w.join(10_000);
            if (w.isAlive()) {
                throw new IllegalStateException(impl + ": " + w.getName() + " did not stop");
            }
            count += w.count;
            sum += w.sum;
        }
        long putSum = put / BATCH * ((long) BATCH * (BATCH + 1) / 2);  // each batch is the ids 1..BATCH
        if (count != put || sum != putSum) {
            throw new IllegalStateException(impl + " is not exactly once: put " + put + " ids (sum " + putSum
                    + "), taken " + count + " (sum " + sum + ")");
        }
    }

    /** A handoff by name: a baseline queue, or a kit handoff sized for {@code workers} workers. */
    static Handoff<Integer> create(String impl, int workers) {
        switch (impl) {
            case "ArrayBlockingQueue": return blocking(new ArrayBlockingQueue<>(CAPACITY));
            case "LinkedBlockingQueue": return blocking(new LinkedBlockingQueue<>(CAPACITY));
            case "LinkedTransferQueue": return blocking(new LinkedTransferQueue<>());
            case "SynchronousQueue": return blocking(new SynchronousQueue<>());
            case "SpmcArrayQueue": return spinning(new SpmcArrayQueue<>(CAPACITY));
            case "MpmcArrayQueue": return spinning(new MpmcArrayQueue<>(CAPACITY));
            default:
                return Handoffs.create(impl, sizedBy(impl).equals("workers") ? workers : CAPACITY);
        }
    }

    /** The catalog's sized_by of a kit class, from -Dhandofflab.sized_by=CLASS=slots,CLASS=workers,... */
    static String sizedBy(String impl) {
        for (String pair : System.getProperty("handofflab.sized_by", "").split(",")) {
            String[] kv = pair.split("=", 2);
            if (kv.length == 2 && kv[0].equals(impl)) {
                return kv[1];
            }
        }
        throw new IllegalArgumentException(impl + ": no sized_by for it in -Dhandofflab.sized_by (./lab bench handoffs "
                + "passes the catalog's)");
    }

    private static Handoff<Integer> blocking(BlockingQueue<Integer> q) {
        return new Handoff<Integer>() {
            @Override
            public void put(Integer item) throws InterruptedException {
                q.put(item);
            }

            @Override
            public Integer take() throws InterruptedException {
                return q.take();
            }
        };
    }

    private static Handoff<Integer> spinning(java.util.Queue<Integer> q) {
        return new Handoff<Integer>() {
            @Override
            public void put(Integer item) {
                for (int n = 0; !q.offer(item); n++) {
                    backOff(n);
                }
            }

            @Override
            public Integer take() {
                Integer item;
                for (int n = 0; (item = q.poll()) == null; n++) {
                    backOff(n);
                }
                return item;
            }
        };
    }

    private static void backOff(int n) {
        if (n < 100) {
            Thread.onSpinWait();
        } else if (n < 200) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(10_000);
        }
    }
}
