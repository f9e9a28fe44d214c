package handofflab.checks;

import java.util.List;

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
}
