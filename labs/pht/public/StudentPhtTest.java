package handofflab.labs.pht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import handofflab.handoffs.ProbeStarts;
import handofflab.handoffs.SynchronizedRef;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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

    /** The table the lab asks for: each put fills the first free slot of its item's probe sequence
     *  (your slotOf, from the item's hash code), each take empties the slot it took from, probing from a
     *  pseudo-random start. One thread; a queue under one lock that only computes slotOf fails here. */
    @Test
    void aPutFillsTheFirstFreeSlotOfItsProbeSequence() throws Exception {
        StudentPht<Integer> t = new StudentPht<>(7);
        SynchronizedRef<?>[] slots = slotsOf(t);
        assertEquals(7, slots.length, "a table of size 7 has 7 slots");
        // 3, 10, 17 and 24 all start at slot 3 (h1 = k mod 7): each next one must go further along its own sequence
        for (int key : new int[] {3, 10, 17, 24, 6, 0}) {
            int i = 0;
            while (i < 7 && slots[t.slotOf(key, i)].get() != null) {
                i++;
            }
            assertTrue(i < 7, "the first 7 probes of key " + key + " find no free slot in " + contents(slots));
            int slot = t.slotOf(key, i);
            t.put(key);
            assertEquals(key, slots[slot].get(), "put(" + key + ") belongs in slot " + slot + " (slotOf(" + key + ", " + i
                    + "), the first free slot of its probe sequence); after it the slots hold " + contents(slots));
        }
        List<Object> left = new ArrayList<>(contents(slots));
        for (int n = 0; n < 6; n++) {
            Integer got = t.take();
            assertTrue(left.contains(got), "take() returned " + got + ", which no slot held: " + left);
            left.set(left.indexOf(got), null);
            assertEquals(left, contents(slots), "take() returned " + got + ": its slot must be empty, the others as they were");
        }
        // From a full table a take empties the first slot of its start key's sequence. The starts are steered
        // (ProbeStarts.steer: the test chooses them, as the grader's checks do), so each take's slot is known:
        // keys 3, 10, 18, 26, 41, 0 and 15 start at slots 3, 3, 4, 5, 6, 0 and 1 (h1 = k mod 7). No luck is involved.
        int[] keys = {3, 10, 18, 26, 41, 0, 15};
        ProbeStarts.steer(keys);
        try {
            StudentPht<Integer> full = new StudentPht<>(7);   // made while steered: its starts are the keys above
            SynchronizedRef<?>[] fullSlots = slotsOf(full);
            for (int item = 0; item < 7; item++) {
                full.put(item);                                 // item k lands in slot k: the table is full
            }
            for (int key : keys) {
                Integer got = full.take();
                int start = full.slotOf(key, 0);
                assertEquals(null, fullSlots[start].get(), "with its start steered to key " + key + ", a take from a "
                        + "full table must empty slot " + start + " (slotOf(" + key + ", 0)); it took " + got
                        + " and left " + contents(fullSlots) + ". Draw each take's start key from starts.next(m) "
                        + "(ProbeStarts) and probe slotOf(key, 0), slotOf(key, 1), ...");
                full.put(got);                                  // back into the one free slot
            }
        } finally {
            ProbeStarts.unsteer();
        }
    }

    /** The table's one array of SynchronizedRef slots, whatever its field is called. */
    static SynchronizedRef<?>[] slotsOf(StudentPht<?> t) throws IllegalAccessException {
        List<Field> fields = new ArrayList<>();
        for (Field f : t.getClass().getDeclaredFields()) {
            if (f.getType() == SynchronizedRef[].class) {
                fields.add(f);
            }
        }
        assertEquals(1, fields.size(), "the table keeps its items in one array of SynchronizedRef slots (the starter's "
                + "`slots`); this class has " + fields.size());
        fields.get(0).setAccessible(true);
        return (SynchronizedRef<?>[]) fields.get(0).get(t);
    }

    static List<Object> contents(SynchronizedRef<?>[] slots) {
        List<Object> held = new ArrayList<>();
        for (SynchronizedRef<?> slot : slots) {
            held.add(slot.get());
        }
        return held;
    }
}
