package handofflab.labs.calendar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import handofflab.calendar.Event;
import handofflab.calendar.Events.Outcome;
import handofflab.calendar.StoreTrials;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab's public tests: what one user sees, and what a store killed with SIGKILL keeps. The
 * concurrent test at the end scores nothing: whether it catches a store that locks wrongly
 * depends on how the scheduler lines the requests up. The hidden Lincheck test decides that
 * every time, and is worth most of the marks.
 */
class StudentStoreTest {
    @Test
    void oneUserAtATime(@TempDir Path root) throws Exception {
        for (Path where : new Path[] {root, null}) {  // on disk, and in memory (as Lincheck runs it)
            StudentStore store = new StudentStore(where, "LazyList");
            int id = store.create(StoreTrials.ORIGINAL);
            assertEquals(Optional.of(new Event(id, StoreTrials.ORIGINAL)), store.load(id));
            assertEquals(Outcome.OK, store.modify(id, StoreTrials.MOVE), "a move of an event that exists");
            assertEquals("14:00", store.load(id).get().attributes.get("time"), "the move took effect");
            assertEquals("event 62", store.load(id).get().attributes.get("name"), "a move keeps the other attributes");
            assertEquals(Outcome.OK, store.delete(id), "a delete of an event that exists");
            assertEquals(Outcome.DELETED, store.modify(id, StoreTrials.MOVE), "a move after the delete is refused");
            assertEquals(Optional.empty(), store.load(id), "a refused move re-creates nothing");
            assertEquals(Outcome.GONE, store.delete(id), "a second delete finds nothing");
            assertEquals(Outcome.DELETED, store.modify(999, StoreTrials.MOVE), "no event 999 was ever created");
            assertEquals(Outcome.GONE, store.delete(999), "no event 999 was ever created");
            int other = store.create(StoreTrials.ORIGINAL);
            assertTrue(other != id, "an id is never given twice");
            assertEquals(Outcome.OK, store.modify(other, StoreTrials.MOVE), "a lock left held by a refused request "
                    + "would block this one (in another thread; here the same thread may take it again)");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aStoreKilledMidRunLosesNothingAndHalfWritesNothing(@TempDir Path root) throws Exception {
        // A separate JVM runs your store with four threads; it is killed with SIGKILL mid-write.
        System.out.println(StoreTrials.crash(StudentStore.class.getName(), root, 2_000));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void tenThousandRequestsAtOnceEndInTheSixOrderings() throws Exception {
        // Not scored: see the class comment. The paper's A (a move), B (a delete) and C (a load) of
        // each of 3 334 events, shuffled on 64 threads: the outcome of each event must be one of the
        // six orderings of A, B and C.
        System.out.println(StoreTrials.sixOrderings(new StudentStore(null, "LazyList"), 3_334, null));
    }
}
