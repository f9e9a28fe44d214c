package handofflab.dht;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SerialTableTest {
    static int[] pairs(int from, int count) {
        int[] v = new int[2 * count];
        for (int i = 0; i < count; i++) {
            v[2 * i] = from + i;
            v[2 * i + 1] = -(from + i);
        }
        return v;
    }

    @Test
    void aKeyWithMoreValuesThanABucketSpillsIntoFurtherSlotsAndComesBackWhole() {
        SerialTable t = new SerialTable(2, 3, 4, 1 << 10);
        assertEquals(10, t.insert(7, 10, pairs(0, 10)));      // four buckets of 3 for one key
        assertEquals(2, t.insert(8, 2, pairs(100, 2)));
        int[] out = new int[2 * 20];
        assertEquals(10, t.find(7, 20, out));
        int[] got = Arrays.copyOf(out, 20);
        assertArrayEquals(DhtMain.Workload.sortedPairs(pairs(0, 10)), DhtMain.Workload.sortedPairs(got));
        assertEquals(12, t.size());
    }

    @Test
    void deleteRemovesWhatItReturnsAndTheTableGrowsPastItsFirstSlots() {
        SerialTable t = new SerialTable(2, 2, 2, 1 << 12);
        for (int k = 0; k < 500; k++) {
            assertEquals(3, t.insert(k, 3, pairs(3 * k, 3)));
        }
        assertEquals(1500, t.size());
        int[] out = new int[2 * 3];
        for (int k = 0; k < 500; k += 2) {
            assertEquals(3, t.delete(k, 3, out));
            assertArrayEquals(DhtMain.Workload.sortedPairs(pairs(3 * k, 3)), DhtMain.Workload.sortedPairs(out));
        }
        assertEquals(750, t.size());
        for (int k = 0; k < 500; k++) {  // the tombstones keep the odd keys' probe sequences whole
            assertEquals(k % 2 == 0 ? 0 : 3, t.find(k, 3, out), "key " + k);
        }
        assertEquals(1, t.delete(1, 1, out));
        assertEquals(2, t.find(1, 3, out));
    }

    @Test
    void aFullTableStoresWhatFitsAndSaysHowMuch() {
        SerialTable t = new SerialTable(1, 4, 4, 4);     // at most 4 slots of 4 values
        assertEquals(16, t.insert(1, 16, new int[16]));
        assertEquals(0, t.insert(2, 5, new int[5]));      // every slot is key 1's
        int[] out = new int[4];
        assertEquals(4, t.delete(1, 4, out));             // a slot empties ...
        assertEquals(4, t.insert(2, 5, new int[5]));      // ... and takes 4 of key 2's 5
        assertEquals(16, t.size());
    }

    @Test
    void aRequestLongerThanItsArrayIsRefusedWithTheSizes() {
        SerialTable t = new SerialTable(2, 4, 4, 64);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.insert(1, 3, new int[5]));
        assertTrue(e.getMessage().contains("3 values of width 2 needs 6 ints; the array holds 5"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new SerialTable(0, 4, 4, 64));
    }
}
