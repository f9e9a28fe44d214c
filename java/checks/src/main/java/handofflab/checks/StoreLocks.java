package handofflab.checks;

import handofflab.calendar.StoreTrials;

/**
 * The calendar store's lock probe ({@link StoreTrials#lockProbe}): one request held at its commit,
 * another sent beside it. A request for the same event must wait ({@code LockedPerEvent}), one for
 * another event must not ({@code IndependentEvents}: the paper's per-entity locks, where a
 * store-wide lock is correct but makes every user wait for every other). The held request stays
 * held until the verdict, so the probe decides the same every run, on a quiet machine or a busy one.
 */
public final class StoreLocks {
    private StoreLocks() {
    }

    public static Verdict run(String className) throws Exception {
        return ofTrial("locks", className, () -> StoreTrials.lockProbe(className), "with a modify or a delete of one"
                + " event held at its commit, every request for that event waited and every request for another event"
                + " returned (8 pairs)");
    }

    /** A trial of the calendar's (a probe), run once: what it passed, or the rule its {@link StoreTrials.TrialFailure}
     *  names ({@code deadlock}, or a violation of the spec's rule) with the failure's steps as swimlanes. */
    static Verdict ofTrial(String checker, String className, Trial trial, String passed) throws Exception {
        Verdict v = new Verdict(checker, className);
        long start = System.nanoTime();
        try {
            trial.run();
            v.detail = passed;
        } catch (StoreTrials.TrialFailure e) {
            String why = String.valueOf(e.getMessage());
            String property = why.substring(0, Math.max(0, why.indexOf(':')));
            v.verdict = property.equals("deadlock") ? "deadlock" : "violation:" + property;
            v.detail = why.substring(why.indexOf(':') + 1).trim();
            for (String[] step : e.steps) {
                v.steps.add(new String[] {step[0], step[1], ""});
            }
        }
        v.stats.put("seconds", (System.nanoTime() - start) / 1e9);
        return v;
    }

    interface Trial {
        void run() throws Exception;
    }
}
