package handofflab.handoffs;

/**
 * The halves of the fast handoffs' Dekker pairs, for the jcstress tests (java/jcstress, package
 * {@code handofflab.jcstress.tests}), which run each half on its own thread, side by side, on the real JIT and
 * hardware. Each half is one method of its handoff, package-private there; this is the one door to them from outside
 * the package, and nothing but those tests opens it (a lab's allowed API does not name it). A worker's or acceptor's
 * half that its handoff runs under its monitor must run under {@link #monitorOf} here too.
 */
public final class DekkerHalves {
    private DekkerHalves() {
    }

    /** FastBuffer, the worker's pair: a worker registers, then looks: true if nothing is past index t (it may sleep). */
    public static boolean workerRegistersThenLooks(FastBuffer<?> b, long t) {
        return b.registerThenLook(t);
    }

    /** FastBuffer, the worker's pair: the acceptor publishes index next, then looks: true if a worker registered. */
    public static boolean acceptorPublishesThenLooks(FastBuffer<?> b, long next) {
        return b.publishThenLook(next);
    }

    /** FastBuffer, the acceptor's pair: the acceptor registers, then looks: true if index t still has no room. */
    public static boolean acceptorRegistersThenLooksForRoom(FastBuffer<?> b, long t) {
        return b.registerThenLookRoom(t);
    }

    /** FastBuffer, the acceptor's pair: a worker claims index t, then looks: true if the acceptor registered. */
    public static boolean workerClaimsThenLooks(FastBuffer<?> b, long t) {
        b.claim(t);
        return b.acceptorWaiting;
    }

    /** FastPht, its item permits' pair: a worker registers as a waiter, then takes a permit: true if it took one. */
    public static boolean waiterRegistersThenTries(FastPht<?> t) {
        return itemPermits(t).registerThenTry();
    }

    /** FastPht, its item permits' pair: the acceptor adds a permit, then looks: true if a waiter registered. */
    public static boolean releaserReleasesThenLooks(FastPht<?> t) {
        return itemPermits(t).releaseThenLook();
    }

    /** The monitor a waiter's half runs under: the buffer's own, or the table's item permits'. */
    public static Object monitorOf(Handoff<?> h) {
        return h instanceof FastPht ? ((FastPht<?>) h).filled : h;
    }

    private static FastPermits itemPermits(FastPht<?> t) {
        return (FastPermits) t.filled;
    }
}
