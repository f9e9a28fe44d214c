package handofflab.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What a server counts: in bounded memory, and every accepted connection accounted for. */
class ServerStatsTest {

    @Test
    void servedIdsAreKeptInBoundedMemory() {
        ServerStats stats = new ServerStats();
        for (long id = 0; id < 10L * ServerStats.RecentIds.AT_LEAST; id++) {
            stats.served(id);
        }
        assertTrue(stats.servedIds.size() <= 2 * ServerStats.RecentIds.AT_LEAST, "kept " + stats.servedIds.size());
        assertEquals(0, stats.count(ServerStats.Problem.DUPLICATE_ID));
    }

    @Test
    void aDuplicateWithinTheWindowIsCaughtEvenAcrossAGeneration() {
        ServerStats.RecentIds ids = new ServerStats.RecentIds();
        for (long id = 0; id < ServerStats.RecentIds.AT_LEAST; id++) {
            assertTrue(ids.add(id));
        }
        // the newer generation just turned over: the last AT_LEAST ids are still remembered
        assertFalse(ids.add(ServerStats.RecentIds.AT_LEAST - 1));
        assertFalse(ids.add(0));
    }

    @Test
    void everyAcceptedConnectionIsServedOrAProblem() {
        ServerStats stats = new ServerStats();
        for (int i = 0; i < 4; i++) {
            stats.countAccepted();
        }
        stats.served(1);
        stats.served(1);                                      // served twice: both count as served
        stats.problem(ServerStats.Problem.TIMEOUT);           // ends a connection
        stats.problem(ServerStats.Problem.ACCEPT_FAILED);     // no connection to end
        assertEquals(1, stats.unaccounted());                 // one still open (or cut off)
        stats.problem(ServerStats.Problem.EXHAUSTED);
        assertEquals(0, stats.unaccounted());
        assertEquals(1, stats.count(ServerStats.Problem.DUPLICATE_ID));
    }
}
