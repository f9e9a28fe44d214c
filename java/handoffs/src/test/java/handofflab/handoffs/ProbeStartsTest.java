package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The take starts the checkers steer: steered keys in turn per table, random and repeatable otherwise. */
class ProbeStartsTest {
    @AfterEach
    void unsteer() {
        ProbeStarts.unsteer();
    }

    @Test
    void aTableMadeWhileSteeredDrawsTheKeysInTurnFromItsFirst() {
        ProbeStarts.steer(5, 1);
        ProbeStarts first = new ProbeStarts();
        assertEquals(5, first.next(3));
        assertEquals(1, first.next(3));
        assertEquals(5, first.next(3), "the keys come round again");
        ProbeStarts second = new ProbeStarts();
        assertEquals(5, second.next(3), "each table made while steered starts from the first key");
        assertEquals(1, new ProbeStarts().next(2), "a key past m(m - 1) is taken modulo it: 5 mod 2");
    }

    @Test
    void unsteeredItCoversEveryStartAndStepAndRepeatsRunToRun() {
        ProbeStarts.steer(4);
        ProbeStarts.unsteer();
        ProbeStarts a = new ProbeStarts(), b = new ProbeStarts();
        Set<Integer> keys = new TreeSet<>();
        for (int n = 0; n < 500; n++) {
            int k = a.next(7);
            assertEquals(k, b.next(7), "two unsteered sources draw the same keys: a run repeats");
            assertTrue(k >= 0 && k < 42, "key " + k + " is not one of 7 x 6 (start, step) pairs");
            keys.add(k);
        }
        assertEquals(42, keys.size(), "500 draws cover every (start, step) pair of a table of 7: " + keys);
    }

    @Test
    void steeringWithNoKeyIsRefused() {
        assertThrows(IllegalArgumentException.class, ProbeStarts::steer);
    }
}
