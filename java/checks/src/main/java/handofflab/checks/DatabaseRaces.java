package handofflab.checks;

import handofflab.calendar.DatabaseTrials;

/**
 * The calendar database's race probe and lock probe ({@link DatabaseTrials#raceProbe}): specs/CalendarEntities.tla's two races,
 * a join and an added event each held just after it reads the user while the user's delete runs beside it, so
 * that the schedule that shows a slip is the one run, every run. The verdict names the spec's rule that broke
 * (NoDanglingMember, NoOrphanEvent, OneOfTheOrderings) or a deadlock (a cycle the JVM finds), with the swimlanes.
 */
public final class DatabaseRaces {
    private DatabaseRaces() {
    }

    public static Verdict run(String className) throws Exception {
        return StoreLocks.ofTrial("races", className, () -> DatabaseTrials.raceProbe(className), "a join and an added"
                + " event, each held just after it read the user while the user's delete ran beside it: no reference left"
                + " to a deleted entity, each user told what an ordering tells them");
    }

    /** The database's lock probe ({@link DatabaseTrials#independenceProbe}): checker {@code locks}, as the store's. */
    public static Verdict locks(String className) throws Exception {
        return StoreLocks.ofTrial("locks", className, () -> DatabaseTrials.independenceProbe(className), "a join and an"
                + " added event, each held just after it read its user, while one for another user, group and calendar"
                + " was sent beside it: the second returned each time (per-entity locks)");
    }
}
