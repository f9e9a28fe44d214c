package handofflab.checks;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A JPF verdict comes only from a search that ran to its end (issue 22); JPF itself is not needed here. */
class JpfCheckTest {

    @Test
    void aSearchThatExploredNothingIsNoVerdict() {
        // what JPF leaves when the driver class does not load: it logs it, and explores 0 states
        assertTrue(JpfCheck.whyNoVerdict(0, null, "").startsWith("JPF explored no state"));
    }

    @Test
    void aSearchStoppedAtALimitIsNoVerdict() {
        assertTrue(JpfCheck.whyNoVerdict(2_000_001, "max states exceeded: 2000000", "").contains("max states exceeded"));
        assertTrue(JpfCheck.whyNoVerdict(5_000, "JPF out of memory", "NoOutOfMemoryErrorProperty").contains("out of memory"));
    }

    @Test
    void aFinishedSearchOrAnErrorFoundIsAVerdict() {
        assertNull(JpfCheck.whyNoVerdict(9_158, null, ""));  // every interleaving explored
        assertNull(JpfCheck.whyNoVerdict(1_808, "max states exceeded: 2000000", "NoUncaughtExceptionsProperty"));
        assertNull(JpfCheck.whyNoVerdict(4_312, null, "NotDeadlockedProperty"));
    }
}
