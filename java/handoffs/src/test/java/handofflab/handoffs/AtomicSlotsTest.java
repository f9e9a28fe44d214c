package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** FastPht's slots: a fill and a swap are one step each, logged as ParallelHashTable's slots log theirs. */
class AtomicSlotsTest {
    private final List<String> log = new ArrayList<>();

    private AtomicSlots<String> recorded(int m) {
        AtomicSlots<String> slots = new AtomicSlots<>(m);
        slots.recordTo((kind, slot, item) -> log.add(kind + " " + slot + " " + item));
        return slots;
    }

    @Test
    void aSwapTakesWhatWasFilledOnceAndThenFindsTheSlotEmpty() {
        AtomicSlots<String> slots = new AtomicSlots<>(3);
        slots.fill(2, "c1");
        assertEquals("c1", slots.peek(2), "a look sees the fill");
        assertEquals("c1", slots.swap(2));
        assertNull(slots.swap(2), "a second swap finds nothing: the connection left once");
        assertNull(slots.peek(2));
        assertEquals(List.of(), log, "an unrecorded run logs nothing");
    }

    @Test
    void aRecordedRunLogsEachFillAndSwapWithItsSlotAndNeverALook() {
        AtomicSlots<String> slots = recorded(3);
        slots.fill(1, "c1");
        slots.peek(1);
        slots.swap(1);
        slots.swap(1);
        assertEquals(List.of("set 1 c1", "swap 1 c1", "swap 1 null"), log);
    }

    @Test
    void theTwinsReadThenClearLogsTwoStepsAndLeavesAnEmptySlotAlone() {
        AtomicSlots<String> slots = recorded(3);
        slots.fill(0, "c1");
        assertEquals("c1", slots.readThenClear(0));
        assertNull(slots.readThenClear(0));
        assertEquals(List.of("set 0 c1", "get 0 c1", "set 0 null", "get 0 null"), log,
                "the read is a step of its own, which trace validation holds against the design (SplitSwapFastPht)");
    }
}
