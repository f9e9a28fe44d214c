package handofflab.calendar;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
* The race probe and the lock probe decide the same every run: the kit's database passes, and each of the spec's slips is caught
 * by the rule it breaks, with the swimlanes that show it (run five times each: a verdict by luck would differ).
 */
class DatabaseRaceProbeTest {
    @RepeatedTest(5)
    void theKitsDatabasePasses() {
        assertDoesNotThrow(() -> DatabaseTrials.raceProbe(CalendarDatabase.class.getName()));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
        "DatabaseJoinNoUserLock, NoDanglingMember, group",
        "DatabaseAddNoLock, NoOrphanEvent, calendar",
        "DatabaseDeleteGroupFirst, deadlock, each waits for the other",
    })
    void eachSlipIsCaughtEveryRun(String database, String rule, String named) throws Exception {
        for (int run = 0; run < 5; run++) {
            StoreTrials.TrialFailure f = assertThrows(StoreTrials.TrialFailure.class,
                    () -> DatabaseTrials.raceProbe("handofflab.calendar." + database));
            assertTrue(f.getMessage().startsWith(rule + ": ") && f.getMessage().contains(named), f.getMessage());
            assertTrue(f.steps.stream().anyMatch(s -> s[0].equals("user 2") && s[1].startsWith("deleteUser(")), "swimlanes");
        }
    }

    @RepeatedTest(5)
    void oneLockForEveryRequestIsNoRaceAndTheLockProbeCatchesIt() throws Exception {
        assertDoesNotThrow(() -> DatabaseTrials.raceProbe(DatabaseOneLock.class.getName()));
        StoreTrials.TrialFailure f = assertThrows(StoreTrials.TrialFailure.class,
                () -> DatabaseTrials.independenceProbe(DatabaseOneLock.class.getName()));
        assertTrue(f.getMessage().startsWith("IndependentEntities: join(group 1, user 1) waits for the monitor of a DatabaseOneLock"),
                f.getMessage());
        assertTrue(f.steps.stream().anyMatch(s -> s[0].equals("user 1") && s[1].endsWith("(the probe holds it there)")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"CalendarDatabase", "DatabaseJoinNoUserLock", "DatabaseAddNoLock", "DatabaseDeleteGroupFirst"})
    void perEntityLocksPassTheLockProbeEveryRun(String database) {
        for (int run = 0; run < 5; run++) {
            assertDoesNotThrow(() -> DatabaseTrials.independenceProbe("handofflab.calendar." + database));
        }
    }
}
