package handofflab.handoffs;

import java.util.Arrays;
import java.util.List;

/** Creates a handoff by its catalog name, for the checkers, servers and benchmarks. */
public final class Handoffs {
    /** Every class in this package that a catalog entry may name. */
    public static final List<String> NAMES = Arrays.asList("MonitorBuffer", "NotifyBuffer", "IfBuffer");

    private Handoffs() {
    }

    public static <T> Handoff<T> create(String name, int capacity) {
        switch (name) {
            case "MonitorBuffer": return new MonitorBuffer<>(capacity);
            case "NotifyBuffer": return new NotifyBuffer<>(capacity);
            case "IfBuffer": return new IfBuffer<>(capacity);
            default:
                throw new IllegalArgumentException("unknown handoff '" + name + "'; known: " + NAMES);
        }
    }
}
