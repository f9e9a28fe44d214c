package handofflab.labs.mutants;

import handofflab.handoffs.CheckProfile;
import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;

/**
 * The handoff your tests check. The grader runs your tests once per handoff — correct
 * ones and buggy ones — choosing it with {@code -Dhandofflab.subject=CLASS} and its size with
 * {@code -Dhandofflab.profile=...} (the catalog's check profile); on your own machine it is a
 * one-slot {@code MonitorBuffer} unless you say otherwise. Use only these two methods:
 * your tests must judge a handoff by what it does.
 */
public final class Subject {
    private Subject() {
    }

    private static String name() {
        return System.getProperty("handofflab.subject", "MonitorBuffer");
    }

    private static CheckProfile profile() {
        return CheckProfile.parse(System.getProperty("handofflab.profile", "size=1;sized_by=slots;bounded=true;acceptors=2"));
    }

    /**
     * A new, empty handoff for ONE acceptor thread and any number of worker threads. What you
     * get is a wrapper that only puts and takes: it does not say which handoff is inside.
     */
    public static <T> Handoff<T> create() {
        Handoff<T> inside = Handoffs.create(name(), profile().size);
        return new Handoff<T>() {
            @Override
            public void put(T item) throws InterruptedException {
                inside.put(item);
            }

            @Override
            public T take() throws InterruptedException {
                return inside.take();
            }

            @Override
            public String toString() {
                return "the handoff under test";
            }
        };
    }

    /** How many connections it holds before put waits (Integer.MAX_VALUE: it never waits). */
    public static int capacity() {
        return profile().capacity();
    }
}
