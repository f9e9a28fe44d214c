package handofflab.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The stress check's built state catches a put that does not look again every run, and passes the ones that do. */
class TwoWaitingAcceptorsTest {
    @Test
    void aPutThatDoesNotLookAgainIsCaughtEveryRun() throws InterruptedException {
        for (int capacity = 1; capacity <= 3; capacity++) {
            for (int run = 0; run < 10; run++) {
                Verdict v = new Verdict("stress", "IfBuffer");
                TwoWaitingAcceptors.probe("IfBuffer", capacity, v);
                assertEquals("violation:NoInvented", v.verdict, "capacity " + capacity + ", run " + run + ": " + v.detail);
                assertEquals("put(" + (capacity + 2) + ") returned", v.ending.get("acceptor-2"));
            }
        }
    }

    @Test
    void aPutThatOverfillsWithoutLosingIsCaughtEveryRun() throws InterruptedException {
        String name = OverfillingDeque.class.getName();
        for (int capacity = 1; capacity <= 3; capacity++) {
            for (int run = 0; run < 10; run++) {
                Verdict v = new Verdict("stress", name);
                TwoWaitingAcceptors.probe(name, capacity, v);
                assertEquals("violation:Bounded", v.verdict, "capacity " + capacity + ", run " + run + ": " + v.detail);
                assertTrue(v.detail.contains("held " + (capacity + 1) + " connections in room for " + capacity), v.detail);
                assertEquals(capacity + 2, v.steps.size() - 3, "every connection taken once: " + v.detail);
            }
        }
    }

    @Test
    void correctBuffersPassIt() throws InterruptedException {
        for (String name : new String[] {"MonitorBuffer", "LifoBuffer", "NotifyBuffer"}) {
            for (int run = 0; run < 4; run++) {  // each waits SECOND_PUT_MS for a second put that never comes
                Verdict v = new Verdict("stress", name);
                TwoWaitingAcceptors.probe(name, 2, v);
                // NotifyBuffer's lost wake-up needs two takers waiting: it is the trials' to find, not this step's
                assertEquals("pass", v.verdict, name + ": " + v.detail);
                assertTrue(v.steps.isEmpty(), name);
            }
        }
    }
}
