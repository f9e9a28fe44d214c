package handofflab.handoffs;

/**
 * What a handoff waits on when it is full or empty: a count of permits that {@link #acquire} takes
 * one of, waiting while there is none, and {@link #release} gives back. {@link Permits} keeps the
 * count in one monitor that every call takes; {@link FastPermits} takes the monitor only to wait
 * or to wake a waiter.
 */
interface PermitCounter {
    void acquire() throws InterruptedException;

    void release();
}
