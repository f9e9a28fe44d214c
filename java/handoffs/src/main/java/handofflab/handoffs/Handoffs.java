package handofflab.handoffs;

import java.util.Arrays;
import java.util.List;

/**
 * Creates a handoff by its catalog name (or, for a student's class, its full
 * class name with an {@code (int capacity)} constructor), for the checkers,
 * servers, benchmarks and the grader.
 */
public final class Handoffs {
    /** Every class in this package that a catalog entry may name. */
    public static final List<String> NAMES = Arrays.asList("MonitorBuffer", "NotifyBuffer", "IfBuffer");

    private Handoffs() {
    }

    @SuppressWarnings("unchecked")
    public static <T> Handoff<T> create(String name, int capacity) {
        if (name.contains(".")) {
            try {
                return (Handoff<T>) Class.forName(name).getConstructor(int.class).newInstance(capacity);
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new IllegalArgumentException("cannot create " + name + " as a Handoff with a public ("
                        + "int capacity) constructor: " + e, e);
            }
        }
        switch (name) {
            case "MonitorBuffer": return new MonitorBuffer<>(capacity);
            case "NotifyBuffer": return new NotifyBuffer<>(capacity);
            case "IfBuffer": return new IfBuffer<>(capacity);
            default:
                throw new IllegalArgumentException("unknown handoff '" + name + "'; known: " + NAMES);
        }
    }
}
