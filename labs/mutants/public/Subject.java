package handofflab.labs.mutants;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;

/**
 * The handoff your tests check. The grader runs your tests once per handoff — correct
 * ones and buggy ones — choosing it with {@code -Dhandofflab.subject=NAME}; on your own
 * machine it is {@code MonitorBuffer} unless you say otherwise. Use only these two methods:
 * your tests must judge a handoff by what it does.
 */
public final class Subject {
    private Subject() {
    }

    private static String name() {
        return System.getProperty("handofflab.subject", "MonitorBuffer");
    }

    /** A new, empty handoff for ONE acceptor thread and any number of worker threads. */
    public static <T> Handoff<T> create() {
        return Handoffs.create(name(), Handoffs.checkSize(name()));
    }

    /** How many connections it holds before put waits (Integer.MAX_VALUE: it never waits). */
    public static int capacity() {
        return Handoffs.checkCapacity(name());
    }
}
