package handofflab.dht;

import java.util.Locale;

/**
 * Where a target's service thread spends its time, from its first request to the end of its last: applying requests
 * to the table, waiting in its completion queue, idle with no request. Written by the service thread, read by
 * ./lab bench dht's report (so every access holds this monitor).
 */
final class ServiceClock {
    private long waitedNanos, servedNanos;   // its time in its completion queue, and all its time serving
    private long idleNanos;                  // its time waiting for a request (none in its inbox), between two requests
    private long idleBefore;                 // the wait before the request being served, counted once it is served
    private long firstNanos, lastNanos;      // its first request and the end of its last: the run's span

    /**
     * Idle since {@code since}, until now: the wait before the request that just came (none before the first: the run
     * starts there). It counts only once that request is {@link #served}, with the span's new end: counted at once,
     * a report read while the request was being served (a long wait in the completion queue, on a busy machine) held a
     * wait that ended after the span it was divided by, and the shares added up to 1.10 (full tier, 2026-12-07).
     */
    synchronized void idle(long since) {
        idleBefore = firstNanos == 0 ? 0 : System.nanoTime() - since;
    }

    /** A request served from {@code start} until now, and the wait before it. */
    synchronized void served(long start) {
        idleNanos += idleBefore;
        idleBefore = 0;
        lastNanos = System.nanoTime();
        firstNanos = firstNanos == 0 ? start : firstNanos;
        servedNanos += lastNanos - start;
    }

    /** In the completion queue from {@code since} until now. */
    synchronized void waited(long since) {
        waitedNanos += System.nanoTime() - since;
    }

    /** Fraction of the service thread's time spent in its completion queue: waiting, mostly, for a reply to be sent
     *  before its buffer is released. */
    synchronized double waitingShare() {
        return servedNanos == 0 ? 0 : (double) waitedNanos / servedNanos;
    }

    /**
     * The shares as JSON fields, each of the time from the first request to the end of the last: the service thread
     * applying requests to the table, waiting in its completion queue, and idle; the busiest reply writer writing
     * ({@code writerNanos}); the header handlers waiting for a free receive buffer ({@code bufferWaitNanos}, summed
     * over them: above 1 when several wait at once); and the requests served.
     */
    synchronized String shares(long writerNanos, long bufferWaitNanos, int requests) {
        double span = Math.max(1, lastNanos - firstNanos);
        return String.format(Locale.ROOT, "\"service_table_share\": %.4f, \"service_queue_share\": %.4f, "
                        + "\"service_idle_share\": %.4f, \"writer_busy_share\": %.4f, \"buffer_wait_share\": %.4f, "
                        + "\"target_requests\": %d",
                (servedNanos - waitedNanos) / span, waitedNanos / span, idleNanos / span, writerNanos / span,
                bufferWaitNanos / span, requests);
    }
}
