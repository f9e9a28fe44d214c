package handofflab.checks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How the checkers start and watch a pre-threaded run, as a pre-threaded server does: the workers
 * first, and the acceptors only once every worker waits for work, so that no verdict depends on a
 * start-up race (a worker that registers late with a handoff that keeps one channel per worker would
 * otherwise find its connection handed to nobody).
 */
final class PreThreaded {
    /** A worker that spins, yields or waits with a time limit never parks: a late start must not eat a budget. */
    static final long READY_MS = 1_000;

    private PreThreaded() {
    }

    /** Starts {@code t} as a daemon: a thread a check leaves stuck must not keep the JVM alive. */
    static Thread startDaemon(Thread t) {
        t.setDaemon(true);
        t.start();
        return t;
    }

    static void start(List<Thread> workers, List<Thread> acceptors) throws InterruptedException {
        workers.forEach(PreThreaded::startDaemon);
        long ready = System.nanoTime() + READY_MS * 1_000_000L;
        for (Thread t : workers) {
            while (System.nanoTime() < ready && t.getState() == Thread.State.RUNNABLE) {
                Thread.sleep(1);
            }
        }
        acceptors.forEach(PreThreaded::startDaemon);
    }

    /**
     * Every thread that has not ended waits in wait() or for a monitor: none can go on by itself. A
     * timed wait is not parked (it may wake and find work), nor is a thread that is runnable.
     */
    static boolean allParked(List<Thread> threads) {
        for (Thread t : threads) {
            Thread.State s = t.getState();
            if (s != Thread.State.TERMINATED && s != Thread.State.WAITING && s != Thread.State.BLOCKED) {
                return false;
            }
        }
        return true;
    }

    /**
     * A hang, not a busy machine: {@link #allParked} now and at every one of {@link #SAMPLES} looks 20 ms apart, with
     * none of the threads runnable in the kernel's eyes at any of them. A thread that was woken (notified, or handed
     * the monitor) but waits for a core still reads WAITING or BLOCKED in Java, and the kernel shows it runnable: on a
     * machine too busy to run it, a class that spins round its monitor was once judged "deadlock" here.
     */
    static boolean stuck(List<Thread> threads) throws InterruptedException {
        for (int look = 0; look < SAMPLES; look++) {
            if (!allParked(threads) || anyRunnable(threads)) {
                return false;
            }
            Thread.sleep(20);
        }
        return allParked(threads);
    }

    static final int SAMPLES = 5;

    /**
     * Some of the threads is running or waits for a core (Linux: state R in its /proc stat); false where /proc is not
     * there to ask, and the Java states decide alone. Only these threads: the JIT compiles for seconds while a class
     * hangs.
     */
    static boolean anyRunnable(List<Thread> threads) {
        for (Path task : kernelTasks(threads)) {
            try {
                String stat = Files.readString(task.resolve("stat"));
                if (stat.charAt(stat.lastIndexOf(')') + 2) == 'R') {
                    return true;
                }
            } catch (IOException | RuntimeException e) {
                // the thread ended between the listing and the read: not runnable
            }
        }
        return false;
    }

    /**
     * The kernel's folder (/proc/self/task/N) of each of these threads, found by the name the JVM gives the kernel's
     * thread (its comm, the Java name cut to 15 characters); empty where /proc is not there to ask.
     */
    static List<Path> kernelTasks(List<Thread> threads) {
        Set<String> names = new HashSet<>();
        for (Thread t : threads) {
            names.add(t.getName().length() > 15 ? t.getName().substring(0, 15) : t.getName());
        }
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : all) {
                try {
                    if (names.contains(Files.readString(task.resolve("comm")).strip())) {
                        found.add(task);
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        return found;
    }
}
