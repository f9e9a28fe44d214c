package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The correct handoffs of every design, with real threads: exactly once, and the contracts. */
class HandoffContractTest {

    @ParameterizedTest
    @ValueSource(strings = {"MonitorBuffer", "TwoLockQueue", "ParallelHashTable", "PipeHandoff", "Mailbox"})
    @Timeout(60)
    void oneAcceptorTwoWorkersExactlyOnce(String name) throws Exception {
        int workers = 2, total = 50_000;
        Handoff<Integer> h = Handoffs.create(name, name.equals("ParallelHashTable") ? 7 : workers);
        BitSet seen = new BitSet(total);
        AtomicInteger duplicates = new AtomicInteger(), invented = new AtomicInteger(), taken = new AtomicInteger();
        List<Thread> pool = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            pool.add(new Thread(() -> {
                try {
                    for (Integer x = h.take(); x == null || x != -1; x = h.take()) {
                        taken.incrementAndGet();
                        if (x == null || x < 0 || x >= total) {
                            invented.incrementAndGet();
                            continue;
                        }
                        synchronized (seen) {
                            if (seen.get(x)) {
                                duplicates.incrementAndGet();
                            }
                            seen.set(x);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        pool.forEach(Thread::start);
        for (int i = 0; i < total; i++) {
            h.put(i);
        }
        // Stop markers go in only once every item is taken: the PHT is not FIFO, so a marker put
        // earlier could overtake an item and strand it. A lost item makes this wait (and the test) time out.
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (taken.get() < total && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(taken.get() >= total, "NoLoss: only " + taken.get() + " of " + total + " taken after 30 s");
        for (int w = 0; w < workers; w++) {
            h.put(-1);  // one stop marker per worker (the pipes give each worker one: a marker frees nobody twice)
        }
        for (Thread t : pool) {
            t.join();
        }
        assertEquals(0, duplicates.get(), "NoDuplicate");
        assertEquals(0, invented.get(), "NoInvented");
        assertEquals(total, seen.cardinality(), "NoLoss");
    }

    @Test
    void thePhtRefusesATableSizeThatIsNotPrime() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ParallelHashTable<Integer>(100));
        assertTrue(e.getMessage().contains("prime"), e.getMessage());
        new ParallelHashTable<Integer>(101);  // the paper's size
    }

    @Test
    void withAPrimeSizeEveryProbeSequenceVisitsEverySlot() {
        ParallelHashTable<Integer> pht = new ParallelHashTable<>(101);
        for (int key = 0; key < 5_000; key++) {
            assertEquals(101, pht.slotsVisited(key).size(), "key " + key);
        }
    }

    @Test
    void withSizeFourSomeProbeSequencesVisitOnlyHalf() {
        // NonPrimePht's defect, shown without threads: key 1 has h1 = 1, h2 = 1 + 1 mod 3 = 2.
        NonPrimePht<Integer> pht = new NonPrimePht<>(4);
        assertEquals(Set.of(1, 3), pht.slotsVisited(1));
        assertEquals(Set.of(0, 1, 2, 3), pht.slotsVisited(2));  // h2 = 3, coprime to 4: every slot
    }

    @Test
    void moreTakersThanPipesIsRefusedByName() throws Exception {
        PipeHandoff<Integer> pipes = new PipeHandoff<>(1);
        pipes.put(1);
        assertEquals(1, pipes.take());
        Thread other = new Thread(() -> assertThrows(IllegalStateException.class, pipes::take));
        other.start();
        other.join();
    }

    @Test
    void theQueueIsFifoAndNeverFull() throws InterruptedException {
        TwoLockQueue<Integer> q = new TwoLockQueue<>();
        for (int i = 0; i < 1000; i++) {
            q.put(i);
        }
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, q.take());
        }
    }
}
