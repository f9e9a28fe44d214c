package handofflab.calendar;

import java.nio.file.Path;

/**
 * Trials of the whole database ({@link DatabaseFolders}: the kit's or a student's) with real threads and real files, as
 * specs/CalendarEntities.tla states its promises: requests that span entities (a join beside the
 * user's delete, an event added beside its owner's delete) leave no reference to a deleted entity
 * and lose no committed request, and a database killed with SIGKILL at any instant opens again
 * whole. Each trial ends in an {@link AssertionError} that names what is wrong. One class each:
 * {@link ConcurrentRequests}, {@link CrashTrial}, {@link HeldRequestProbes}; this is where tests, checkers and the
 * lab's public test call them.
 */
public final class DatabaseTrials {
    private DatabaseTrials() {
    }

    /**
     * Runs {@code requests} random requests on four threads at once on a small set of recent users
     * and events, so that joins, added events, modifies and deletes of the same entities race; then
     * checks that {@link DatabaseFolders#problems} finds nothing and that the state is the one the
     * requests' outcomes say: every user, event and membership (of a user who never left) is there
     * exactly when a request that returned OK put it there and none that returned OK removed it. A deadlock is named (the JVM's
     * own cycle detection, no clock). Returns how the races went.
     */
    public static String concurrent(DatabaseFolders db, int requests, long seed) throws Exception {
        return new ConcurrentRequests(db).run(requests, seed);
    }

    /**
     * Runs {@link CrashTrial#main} on a database in {@code root} in a separate JVM, kills it with SIGKILL after
     * {@code lines} acknowledged requests, opens the database again and checks that its references
     * are whole and that every acknowledged request is there: each user, event and membership it
     * reported, unless a delete of it (or of its owner) was under way; nothing it reported deleted.
     */
    public static String crash(String databaseClass, Path root, int lines) throws Exception {
        return new CrashTrial().run(databaseClass, root, lines);
    }

    /**
     * The race probe: specs/CalendarEntities.tla's two races (a join, an added event, each beside the user's delete),
     * each run in the one schedule that shows its slip. Throws a {@link StoreTrials.TrialFailure} named by the spec's
     * rule: NoDanglingMember, NoOrphanEvent, OneOfTheOrderings, or deadlock.
     */
    public static void raceProbe(String databaseClass) throws Exception {
        HeldRequestProbes.raceProbe(databaseClass);
    }

    /** The lock probe: two requests that share no entity must not wait for each other ({@code IndependentEntities}). */
    public static void independenceProbe(String databaseClass) throws Exception {
        HeldRequestProbes.independenceProbe(databaseClass);
    }

    /** A database of class {@code databaseClass} (the kit's, a buggy one or a student's) on LazyLists, in {@code root}; null: in memory. */
    static DatabaseFolders open(String databaseClass, Path root) throws Exception {
        return (DatabaseFolders) Class.forName(databaseClass).getConstructor(Path.class, String.class).newInstance(root, "LazyList");
    }
}
