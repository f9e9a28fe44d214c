package handofflab.labs.mutants;

import static org.junit.jupiter.api.Assertions.assertEquals;

import handofflab.handoffs.Handoff;
import org.junit.jupiter.api.Test;

/**
 * Lab "Catch the buggy handoffs": tests that every correct handoff passes and every
 * buggy one fails. Get a handoff with {@code Subject.create()}; it has ONE acceptor
 * (one thread calls put) and any number of workers. It need not be first-in first-out.
 */
class HandoffTests {

    @Test
    void oneThreadGetsBackWhatItPut() throws InterruptedException {
        Handoff<Integer> h = Subject.create();
        h.put(42);
        assertEquals(42, h.take());
    }

    // TODO: tests with threads. What must never happen, whatever the interleaving?
}
