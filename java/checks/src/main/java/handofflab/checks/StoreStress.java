package handofflab.checks;

import handofflab.calendar.EventFolder;
import handofflab.calendar.StoreTrials;
import java.util.Map;

/**
 * The calendar store under stress and the trials' watchdog: trial after trial of the paper's
 * A, B and C on 1 000 events at once, in memory, until the budget is spent. Each event's outcome
 * must be one of the six orderings (specs/CalendarStore.tla's OneOfTheOrderings, whose name the
 * verdict takes); a trial whose requests can no longer return is a deadlock. A race a few
 * instructions wide shows here only by luck: Lincheck ({@link StoreLincheck}) decides those.
 */
public final class StoreStress {
    static final int EVENTS = 1_000;

    private StoreStress() {
    }

    public static Verdict run(String className, double seconds) throws Exception {
        Verdict v = new Verdict("stress", className);
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        int trials = 0;
        Map<String, Integer> last = Map.of();
        while (System.nanoTime() < deadline) {
            EventFolder store = StoreTrials.open(className, null);
            try {
                last = StoreTrials.sixOrderings(store, EVENTS, null);
            } catch (AssertionError e) {
                String why = String.valueOf(e.getMessage());
                v.verdict = why.startsWith("deadlock") ? "deadlock" : why.startsWith("a request never returns")
                        ? "violation:Termination" : "violation:OneOfTheOrderings";
                v.detail = why + " (trial " + (trials + 1) + " of " + EVENTS + " events)";
                if (e instanceof StoreTrials.TrialFailure) {  // the event's requests, for the swimlanes
                    for (String[] step : ((StoreTrials.TrialFailure) e).steps) {
                        v.steps.add(new String[] {step[0], step[1], ""});
                    }
                }
                break;
            }
            trials++;
        }
        v.stats.put("trials", trials);
        v.stats.put("seconds", seconds);
        if (v.verdict.equals("pass") && trials == 0) {
            v.verdict = "incomplete";
            v.detail = "no trial of " + EVENTS + " events finished within " + seconds + " s: too slow to judge here";
        } else if (v.verdict.equals("pass")) {
            v.detail = trials + " trial(s) of " + EVENTS + " events, each event's outcome one of the six orderings"
                    + " (the last: " + last + ")";
        }
        return v;
    }
}
