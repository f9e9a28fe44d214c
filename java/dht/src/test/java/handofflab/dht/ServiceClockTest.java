package handofflab.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The service thread's shares are of the span from its first request to the end of its last, and add up to it. */
class ServiceClockTest {
    private static double share(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\": ([0-9.]+)").matcher(json);
        assertTrue(m.find(), name + " in " + json);
        return Double.parseDouble(m.group(1));
    }

    private static double accounted(ServiceClock clock) {
        String json = clock.shares(0, 0, 0);
        return share(json, "service_table_share") + share(json, "service_queue_share") + share(json, "service_idle_share");
    }

    @Test
    void aWaitCountsOnlyWithTheRequestThatEndsItSoAReportInBetweenStaysWithinTheSpan() throws InterruptedException {
        ServiceClock clock = new ServiceClock();
        long start = System.nanoTime();
        Thread.sleep(20);
        clock.served(start);                 // the first request: the span starts
        long idleSince = System.nanoTime();
        Thread.sleep(200);                          // a long wait for the next request
        clock.idle(idleSince);               // it came; the report is read while it is served
        long next = System.nanoTime();
        double during = accounted(clock);
        assertTrue(during <= 1.0001, "a report read while the next request is served holds the wait before it: " + during);
        assertEquals(0, share(clock.shares(0, 0, 0), "service_idle_share"), 1e-9);
        Thread.sleep(20);
        clock.served(next);                  // served: the span reaches its end, and the wait is in it
        double after = accounted(clock);
        assertTrue(after > 0.95 && after <= 1.0001, "served, idle and the queue fill the span: " + after);
        assertTrue(share(clock.shares(0, 0, 0), "service_idle_share") > 0.5, "the 200 ms wait is most of the span");
    }

    @Test
    void aWaitBeforeTheFirstRequestIsNotTheRunsYet() throws InterruptedException {
        ServiceClock clock = new ServiceClock();
        long idleSince = System.nanoTime();
        Thread.sleep(50);
        clock.idle(idleSince);
        long start = System.nanoTime();
        Thread.sleep(10);
        clock.served(start);
        assertEquals(0, share(clock.shares(0, 0, 0), "service_idle_share"), 1e-9);
    }
}
