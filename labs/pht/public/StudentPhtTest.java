package handofflab.labs.pht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The lab's public tests: the probe sequence, and what one thread can see. */
class StudentPhtTest {

    @Test
    void everyProbeSequenceVisitsEverySlot() {
        StudentPht<Integer> t = new StudentPht<>(7);
        for (int key : new int[] {0, 1, 5, 6, 12, 1000003, Integer.MAX_VALUE}) {
            Set<Integer> seen = new TreeSet<>();
            for (int i = 0; i < 7; i++) {
                int s = t.slotOf(key, i);
                assertTrue(s >= 0 && s < 7, "slotOf(" + key + ", " + i + ") = " + s + " is not a slot of 7");
                seen.add(s);
            }
            assertEquals(7, seen.size(), "the first 7 probes of key " + key + " visit only " + seen);
            assertEquals(key % 7, t.slotOf(key, 0), "the first probe of key " + key + " is h1 = key mod m");
        }
    }

    @Test
    void oneThreadGetsBackExactlyWhatItPut() throws InterruptedException {
        StudentPht<Integer> t = new StudentPht<>(5);
        Set<Integer> put = new HashSet<>(), got = new HashSet<>();
        for (int round = 0; round < 20; round++) {
            for (int j = 0; j < 5; j++) {          // fill the table: 5 items in 5 slots
                int item = round * 5 + j;
                t.put(item);
                put.add(item);
            }
            for (int j = 0; j < 5; j++) {
                assertTrue(got.add(t.take()), "a take returned an item twice");
            }
        }
        assertEquals(put, got);
        assertFalse(got.contains(null));
    }
}
