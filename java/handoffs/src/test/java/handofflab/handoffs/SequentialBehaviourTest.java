package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * With one thread, every buffer variant behaves alike: the buggy ones are only
 * wrong under concurrency, which is why the kit needs model checkers to find them.
 */
class SequentialBehaviourTest {

    static java.util.List<String> names() {
        return Handoffs.NAMES;
    }

    @ParameterizedTest
    @MethodSource("names")
    void oneThreadSeesAFifo(String name) throws InterruptedException {
        Handoff<Integer> h = Handoffs.create(name, 2);
        for (int i = 0; i < 10; i++) {
            h.put(i);
            h.put(i + 100);
            assertEquals(i, h.take());
            assertEquals(i + 100, h.take());
        }
    }

    @ParameterizedTest
    @MethodSource("names")
    void unknownNamesAreRefusedByName(String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Handoffs.create(name + "X", 1));
        assertEquals(true, e.getMessage().contains(name + "X"));
    }
}
