package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * With one thread, every handoff and every variant behaves alike: the buggy ones
 * are only wrong under concurrency, which is why the kit needs model checkers.
 */
class SequentialBehaviourTest {

    /**
     * Every class but those sized by workers (the pipes): a pipe worker frees itself only when
     * it comes back for the next connection, so one thread cannot be acceptor and worker.
     */
    static java.util.List<Catalog.Variant> names() {
        java.util.List<Catalog.Variant> names = new java.util.ArrayList<>(Catalog.javaVariants());
        names.removeIf(v -> v.profile.sizedBy.equals("workers"));
        return names;
    }

    static Handoff<Integer> create(Catalog.Variant v) {
        return Handoffs.create(v.javaClass, Math.max(2, v.profile.size));  // the PHTs' 3 or 4 slots, else 2
    }

    @ParameterizedTest
    @MethodSource("names")
    void oneThreadGetsBackWhatItPut(Catalog.Variant name) throws InterruptedException {
        Handoff<Integer> h = create(name);
        for (int i = 0; i < 10; i++) {
            h.put(i);
            assertEquals(i, h.take());
        }
    }

    @ParameterizedTest
    @MethodSource("names")
    void unknownNamesAreRefusedByName(Catalog.Variant name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Handoffs.create(name + "X", 1));
        assertEquals(true, e.getMessage().contains(name + "X"));
    }
}
