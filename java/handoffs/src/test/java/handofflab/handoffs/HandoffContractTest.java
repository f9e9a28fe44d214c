package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The correct handoffs of every design, with real threads: exactly once, and the contracts. */
class HandoffContractTest {

    /** The catalog's correct classes. */
    static List<Catalog.Variant> correct() {
        List<Catalog.Variant> all = new ArrayList<>(Catalog.javaVariants());
        all.removeIf(v -> !v.correct);
        return all;
    }

    @ParameterizedTest
    @MethodSource("correct")
    @Timeout(600)  // a put that never returns; a lost id fails sooner, on the ledger's 30 s without progress
    void oneAcceptorTwoWorkersExactlyOnce(Catalog.Variant v) throws Exception {
        int workers = 2, total = 50_000;
        // one channel per worker where the design is sized by workers; else 7 slots (a prime, for the PHT)
        Handoff<Integer> h = Handoffs.create(v.javaClass, v.profile.sizedBy.equals("workers") ? workers : 7);
        ExactlyOnceLedger ledger = new ExactlyOnceLedger(total);
        List<Thread> pool = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            pool.add(ledger.worker(h));
        }
        pool.forEach(Thread::start);
        for (int i = 0; i < total; i++) {
            h.put(i);
        }
        // Stop markers go in only once every item is taken: the PHT is not FIFO, so a marker put
        // earlier could overtake an item and strand it.
        ledger.awaitAllTaken();
        for (int w = 0; w < workers; w++) {
            h.put(-1);  // one stop marker per worker (the pipes give each worker one: a marker frees nobody twice)
        }
        for (Thread t : pool) {
            t.join();
        }
        ledger.assertExactlyOnce();
    }

    @Test
    @Timeout(60)
    void theLedgerFailsAHandoffThatLosesOneIdOnceTakingStalls() throws Exception {
        // The contract test's own check, shown able to fail: a queue that drops id 7 stalls one id short.
        TwoLockQueue<Integer> q = new TwoLockQueue<>();
        Handoff<Integer> losesSeven = new Handoff<>() {
            @Override public void put(Integer x) throws InterruptedException {
                if (x != 7) {
                    q.put(x);
                }
            }

            @Override public Integer take() throws InterruptedException {
                return q.take();
            }
        };
        ExactlyOnceLedger ledger = new ExactlyOnceLedger(100, 1);
        Thread worker = ledger.worker(losesSeven);
        worker.start();
        for (int i = 0; i < 100; i++) {
            losesSeven.put(i);
        }
        AssertionError e = assertThrows(AssertionError.class, ledger::awaitAllTaken);
        assertTrue(e.getMessage().startsWith("NoLoss: only 99 of 100 taken, and none for 1 s"), e.getMessage());
        q.put(-1);
        worker.join();
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
    void anInsertPastEveryProbeOfAHalfSequenceFailsItsAssert() throws Exception {
        // What JPF catches in NonPrimePht (JPF runs the kit's asserts; surefire runs with -ea too):
        // 3 and 1 lie in slots 3 and 1; 7 (h1 = 3, h2 = 2) probes only those two, for ever.
        assertTrue(NonPrimePht.class.desiredAssertionStatus(), "surefire runs with assertions enabled");
        NonPrimePht<Integer> pht = new NonPrimePht<>(4);
        pht.put(3);
        pht.put(1);
        AssertionError e = assertThrows(AssertionError.class, () -> pht.put(7));
        assertTrue(e.getMessage().startsWith("EventuallyTaken: an insert probed all 4 slots"), e.getMessage());
        ParallelHashTable<Integer> prime = new ParallelHashTable<>(5);  // the same keys, m prime: every slot is visited
        for (int id : new int[] {3, 1, 7, 8}) {
            prime.put(id);
        }
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
