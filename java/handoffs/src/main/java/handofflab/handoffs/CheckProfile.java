package handofflab.handoffs;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How the checkers build and drive one handoff class: the catalog's {@code [handoff.check]}
 * (specs/catalog.toml), sent by {@code ./lab} and the grader as one argument,
 * {@code size=3;sized_by=slots;bounded=true;acceptors=1;stress_sizes=3;same_slot_takes=true;more_workers_than_slots=true;lapping_put=false;spin_looks=0;jpf_acceptors=1;jpf_ids=1/2}.
 * Java keeps no list of the kit's classes: what a class is checked like is the catalog's word.
 */
public final class CheckProfile {
    /** Slots (a buffer, a table), workers (one channel each), or nothing (an unbounded queue). */
    public final int size;
    public final String sizedBy;
    /** Whether put waits once {@link #size} connections are in. */
    public final boolean bounded;
    /** The most acceptors a trial runs: 1 for a design made for one. */
    public final int acceptors;
    /** The sizes the stress trials take in turn. */
    public final int[] stressSizes;
    /** Lincheck's targeted scenario: two workers claim one table slot at once (both start at key 3). */
    public final boolean sameSlotTakes;
    /** Lincheck's steered scenario: the take start keys ({@link ProbeStarts#steer}) under which one worker's
     *  single pass can be overtaken; empty: none. */
    public final int[] startKeys;
    /** The stress check's built state of a table whose counts may share one monitor: its takes held between claim
     *  and swap, more workers than slots waiting ahead of the acceptor (NotifyPht's lost wake-up). */
    public final boolean moreWorkersThanSlots;
    /** Lincheck's scenario of a ring that starts full: the acceptor's next put laps it while workers take, so a take
     *  that reads its place after the claim that gave the acceptor room finds the next lap's connection. */
    public final boolean lappingPut;
    /** The most times the class looks in a loop before it sleeps (0: it sleeps at once); Lincheck must let a loop run that long. */
    public final int spinLooks;
    /** Acceptors in JPF's driver. */
    public final int jpfAcceptors;
    /** The connections JPF's driver hands over, shared out among its acceptors; one worker each. */
    public final int[] jpfIds;

    private CheckProfile(Map<String, String> keys) {
        size = Integer.parseInt(keys.get("size"));
        sizedBy = keys.get("sized_by");
        bounded = Boolean.parseBoolean(keys.get("bounded"));
        acceptors = Integer.parseInt(keys.get("acceptors"));
        stressSizes = Arrays.stream(keys.getOrDefault("stress_sizes", keys.get("size")).split("/"))
                .mapToInt(Integer::parseInt).toArray();
        sameSlotTakes = Boolean.parseBoolean(keys.getOrDefault("same_slot_takes", "false"));
        String starts = keys.getOrDefault("start_keys", "");
        startKeys = starts.isEmpty() ? new int[0] : Arrays.stream(starts.split("/")).mapToInt(Integer::parseInt).toArray();
        moreWorkersThanSlots = Boolean.parseBoolean(keys.getOrDefault("more_workers_than_slots", "false"));
        lappingPut = Boolean.parseBoolean(keys.getOrDefault("lapping_put", "false"));
        spinLooks = Integer.parseInt(keys.getOrDefault("spin_looks", "0"));
        jpfAcceptors = Integer.parseInt(keys.getOrDefault("jpf_acceptors", "1"));
        jpfIds = Arrays.stream(keys.getOrDefault("jpf_ids", "1/2").split("/")).mapToInt(Integer::parseInt).toArray();
        if (size < 1 || acceptors < 1 || spinLooks < 0 || Arrays.stream(startKeys).anyMatch(k -> k < 0) || jpfAcceptors < 1 || jpfIds.length < jpfAcceptors || !Arrays.asList("slots", "workers", "nothing").contains(sizedBy)) {
            throw new IllegalArgumentException("profile out of range: " + keys);
        }
    }

    /** Parses the {@code --profile} argument; a clear error naming the key that is wrong. */
    public static CheckProfile parse(String text) {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String pair : text.split(";")) {
            String[] kv = pair.split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("profile entry '" + pair + "' is not key=value (in '" + text + "')");
            }
            keys.put(kv[0].trim(), kv[1].trim());
        }
        for (String needed : new String[] {"size", "sized_by", "bounded", "acceptors"}) {
            if (!keys.containsKey(needed)) {
                throw new IllegalArgumentException("profile '" + text + "' lacks " + needed);
            }
        }
        try {
            return new CheckProfile(keys);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("profile '" + text + "' has a number that is not one: " + e.getMessage(), e);
        }
    }

    /** How many connections it holds before put waits (MAX_VALUE: it never waits). */
    public int capacity() {
        return bounded ? size : Integer.MAX_VALUE;
    }

    /** A handoff made for one acceptor is never put to from two threads. */
    public boolean oneAcceptor() {
        return acceptors == 1;
    }

    /**
     * The shapes the stress trials take in turn: {acceptors, size}: every stress size, each
     * with one acceptor and, where the design allows more, with {@link #acceptors}.
     */
    public int[][] stressShapes() {
        int[] as = acceptors == 1 ? new int[] {1} : new int[] {1, acceptors};
        int[][] shapes = new int[stressSizes.length * as.length][];
        int i = 0;
        for (int s : stressSizes) {
            for (int a : as) {
                shapes[i++] = new int[] {a, s};
            }
        }
        return shapes;
    }
}
