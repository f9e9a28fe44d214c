package handofflab.handoffs;

/**
 * BUGGY on purpose: the correct {@link ParallelHashTable}, used by TWO acceptors.
 * The table's insert is a read of a slot, then a set, in two synchronized calls:
 * correct only when one thread inserts (Roussev &amp; Wu 2006 rely on their single
 * producer). With two, both read the same empty slot and the second set
 * overwrites the first connection. Nothing in the class is wrong; its contract is
 * broken, which is why the checkers drive it with two acceptors. TLA+:
 * {@code specs/TwoProducerPht.cfg} (TLC: invariant NoLoss).
 */
public final class TwoProducerPht<T> extends ParallelHashTable<T> {

    public TwoProducerPht(int m) {
        super(m);
    }
}
