package handofflab.handoffs;

/**
 * BUGGY: {@link OneMonitorPht} whose take, having freed a slot, wakes with {@code notify()}. With every
 * slot's item claimed and not yet swapped out, a worker more waits for an item in the one wait set beside
 * the acceptor, who waits for a free slot; the one thread woken may be that worker, which finds nothing
 * filled and waits again, and the acceptor sleeps beside a free slot (a lost wake-up). It takes more
 * workers than slots. HotSpot wakes the longest waiter: the stress check holds the takes that claimed
 * every slot between claim and swap, lets workers wait first and the acceptor behind them, and the
 * lost wake-up happens every run.
 *
 * <p>TLA+: {@code specs/NotifyPht.cfg} (OneMonitorPht.tla, TakeWakesAll = FALSE): TLC finds the deadlock
 * with two slots and three workers.
 */
public class NotifyPht<T> extends OneMonitorPht<T> {
    public NotifyPht(int m) {
        super(m, false);
    }
}
