package handofflab.checks;

import java.util.List;

/**
 * Threads for the stress check's built states (TwoWaitingAcceptors, TwoWaitingWorkers): each runs one
 * scripted call, and the step waits until they have settled (ended, or parked and still parked a moment
 * later) before it builds the next part of the state.
 */
final class Steps {
    private Steps() {
    }

    interface Calls {
        void run() throws InterruptedException;
    }

    static Thread start(List<Thread> threads, String name, Calls calls) {
        Thread t = new Thread(() -> {
            try {
                calls.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | Error e) {
                // a put or take that throws: the trials report it, with their swimlanes
            }
        }, name);
        threads.add(PreThreaded.startDaemon(t));
        return t;
    }

    /** Whether every thread ended ({@code ended}), or ended or parked, before {@code until}. */
    static boolean settled(List<Thread> threads, boolean ended, long until) throws InterruptedException {
        while (System.nanoTime() < until) {
            if (still(threads, ended)) {
                Thread.sleep(20);  // parked now, and still parked a moment later: not on the way to a lock
                if (still(threads, ended)) {
                    return true;
                }
            }
            Thread.sleep(1);
        }
        return false;
    }

    private static boolean still(List<Thread> threads, boolean ended) {
        return ended ? threads.stream().allMatch(Steps::ended) : PreThreaded.allParked(threads);
    }

    static boolean ended(Thread t) {
        return t.getState() == Thread.State.TERMINATED;
    }

    /** Whether every thread waits in {@code monitor}'s wait(): what a step that holds that monitor can hold up. */
    static boolean waitingOn(Object monitor, Thread... threads) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        for (Thread t : threads) {
            java.lang.management.ThreadInfo info = mx.getThreadInfo(t.getId());
            if (info == null || info.getLockInfo() == null
                    || info.getLockInfo().getIdentityHashCode() != System.identityHashCode(monitor)) {
                return false;
            }
        }
        return true;
    }

    /** Every thread ended or waiting in wait() (not blocked on a lock: that one is on its way). */
    static boolean parked(Thread... threads) {
        for (Thread t : threads) {
            if (!ended(t) && t.getState() != Thread.State.WAITING) {
                return false;
            }
        }
        return true;
    }
}
