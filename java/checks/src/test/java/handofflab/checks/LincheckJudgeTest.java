package handofflab.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How a Lincheck failure becomes a verdict; Lincheck itself is not run here (the Python tests run it). */
class LincheckJudgeTest {

    private static String judged(String message) {
        Verdict v = new Verdict("lincheck", "Some");
        LincheckCheck.judge(v, new AssertionError(message), "not linearizable");
        return v.verdict;
    }

    @Test
    void invalidResultsAreAViolationAndAHangADeadlock() {
        assertEquals("violation:Linearizable", judged("= Invalid execution results =\n| modify(0, 1): OK |"));
        assertEquals("deadlock", judged("= The execution has hung =\n| modify(0, 1): <hung> |"));
    }

    @Test
    void lincheckFailingItselfIsNoVerdictOnTheClass() {
        // What Lincheck 3.7 printed for a correct store locking with synchronized around the JDK's
        // ConcurrentSkipListMap: a hang it could not replay, then valid results called invalid.
        assertEquals("error", judged("Non-determinism found. Probably caused by non-deterministic code (WeakHashMap, "
                + "Object.hashCode, etc).\n== Reporting the first execution without execution trace ==\n= The execution "
                + "has hung =\n...\n== Reporting the second execution ==\n= Invalid execution results =\n"
                + "| modify(0, 1): DELETED | delete(0): OK |\n| load(0): absent |"));
    }
}
