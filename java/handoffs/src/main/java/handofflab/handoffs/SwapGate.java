package handofflab.handoffs;

/**
 * For the stress check, never for a table: holds a take between its claim and its swap. A lost wake-up in
 * a PHT whose two counts share one monitor needs the acceptor and a worker waiting in it at once, which
 * happens only while every slot's item is claimed and not yet swapped out; a free run passes through that
 * window in microseconds. The check {@linkplain #install installs} a gate, makes a table (each
 * {@link SynchronizedRef} made while a gate is installed keeps it), and then {@linkplain #holdNext holds}
 * the next swaps there, outside the slot's lock, until it {@linkplain #letOneThrough lets them through}.
 * Slots made with no gate installed (every table outside that check) read one final field per swap and go on.
 *
 * <p>A class of the kit, as {@link ProbeStarts}: a lab's allowed API lets a submission use its slots, not this.
 */
public final class SwapGate {
    private static volatile SwapGate installed;

    private int toHold;   // swaps still to stop (guarded by this)
    private int held;     // swaps stopped now
    private int through;  // stopped swaps let through that have not gone on yet

    private SwapGate() {
    }

    /** Every slot made from now on, until {@link #uninstall}, keeps this new gate (open until {@link #holdNext}). */
    public static SwapGate install() {
        SwapGate gate = new SwapGate();
        installed = gate;
        return gate;
    }

    /** Slots made from now on keep no gate. */
    public static void uninstall() {
        installed = null;
    }

    /** The gate a new slot keeps, or null. */
    static SwapGate forNewSlot() {
        return installed;
    }

    /** The next {@code n} swaps through a slot of this gate stop here until let through. */
    public synchronized void holdNext(int n) {
        toHold = n;
    }

    /** Called by a slot's swap, before its lock: stops the swap if one is still to be held. */
    synchronized void pass() {
        if (toHold == 0) {
            return;
        }
        toHold--;
        held++;
        notifyAll();
        boolean interrupted = false;
        while (through == 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;  // held all the same: the check lets every swap through before it interrupts
            }
        }
        through--;
        held--;
        notifyAll();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether {@code n} swaps are stopped here before {@code untilNanos} (System.nanoTime). */
    public synchronized boolean awaitHeld(int n, long untilNanos) throws InterruptedException {
        while (held < n) {
            long ms = (untilNanos - System.nanoTime()) / 1_000_000L;
            if (ms <= 0) {
                return false;
            }
            wait(ms);
        }
        return true;
    }

    /** Lets one stopped swap go on. */
    public synchronized void letOneThrough() {
        through++;
        notifyAll();
    }

    /** Holds no more swaps and lets every stopped one go on. */
    public synchronized void open() {
        toHold = 0;
        through += held;
        notifyAll();
    }

    /** Swaps stopped here now. */
    public synchronized int held() {
        return held;
    }
}
