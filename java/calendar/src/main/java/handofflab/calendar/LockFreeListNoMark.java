package handofflab.calendar;

/**
 * A buggy lock-free list: a remove unlinks its node with one compare-and-set on the
 * predecessor and never marks it. An add that found the removed node as its predecessor
 * still links its new node after it, unreachable: add said true, contains says false.
 */
public final class LockFreeListNoMark extends LockFreeList {
    @Override
    boolean unlink(Node pred, Node curr) {
        return pred.swing(curr, curr.next.get().node, false);  // the slip: no logical delete first
    }
}
