package handofflab.handoffs;

/**
 * BUGGY on purpose: {@link FastBuffer} whose workers claim an index, then read its place. The claim is what tells the
 * acceptor that the place has room: between the two, the acceptor may store the next lap's connection there, and the
 * worker takes that one. The connection it claimed is lost, and the next lap's is taken twice. TLA+:
 * {@code specs/ClaimThenReadBuffer.cfg} (TLC: NoLoss violated).
 */
public final class ClaimThenReadBuffer<T> extends FastBuffer<T> {
    public ClaimThenReadBuffer(int capacity) {
        super(capacity, true, false);
    }
}
