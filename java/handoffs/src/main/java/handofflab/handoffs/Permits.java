package handofflab.handoffs;

/**
 * A counting semaphore on a Java monitor, for the handoffs that must wait when
 * they are full or empty without a lock around the data itself (the PHT, the
 * pipes). It replaces the paper's polling {@code wait(500)}: a waiting thread
 * sleeps until a release, and re-checks in a loop.
 * (Not java.util.concurrent.Semaphore: the model-checked core uses monitors only.)
 */
final class Permits implements PermitCounter {
    private int available;  // guarded by this

    Permits(int initial) {
        available = initial;
    }

    @Override
    public synchronized void acquire() throws InterruptedException {
        while (available == 0) {
            wait();
        }
        available--;
    }

    @Override
    public synchronized void release() {
        available++;
        notifyAll();  // acquirers wait for one condition, but notify() could wake one that was interrupted
    }
}
