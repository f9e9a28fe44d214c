package handofflab.calendar;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Harris and Michael's lock-free list (as in Herlihy &amp; Shavit, ch. 9): each node's next
 * reference carries a mark bit, set by a remove as its logical delete, so that no thread
 * can link a node after a removed one (that compare-and-set would fail on the mark).
 * Searches unlink the marked nodes they pass; contains only reads.
 *
 * <p>The reference and its mark are one immutable {@link Link}, swapped by compare-and-set on an
 * {@link AtomicReference} (as the JDK's AtomicMarkableReference does inside): Lincheck's model
 * checker sees each get and compare-and-set of it as a point where threads may switch.
 */
public class LockFreeList implements CollectionList {
    /** A successor and whether the node that points at it is removed. */
    static final class Link {
        final Node node;
        final boolean marked;

        Link(Node node, boolean marked) {
            this.node = node;
            this.marked = marked;
        }
    }

    static final class Node {
        final int key;
        final AtomicReference<Link> next;

        Node(int key, Node next) {
            this.key = key;
            this.next = new AtomicReference<>(new Link(next, false));
        }

        /** Swings next from (expected, unmarked) to (update, mark), if nothing changed it since. */
        boolean swing(Node expected, Node update, boolean mark) {
            Link now = next.get();
            return now.node == expected && !now.marked && next.compareAndSet(now, new Link(update, mark));
        }
    }

    final Node head;

    public LockFreeList() {
        head = new Node(Integer.MIN_VALUE, new Node(Integer.MAX_VALUE, null));
    }

    /** pred and curr with pred.key &lt; id &lt;= curr.key, unlinking the marked nodes on the way. */
    Node[] find(int id) {
        retry:
        while (true) {
            Node pred = head, curr = pred.next.get().node;
            while (true) {
                Link succ = curr.next.get();
                while (succ.marked) {  // curr is removed: help unlink it
                    if (!pred.swing(curr, succ.node, false)) {
                        continue retry;
                    }
                    curr = succ.node;
                    succ = curr.next.get();
                }
                if (curr.key >= id) {
                    return new Node[] {pred, curr};
                }
                pred = curr;
                curr = succ.node;
            }
        }
    }

    @Override
    public boolean add(int id) {
        while (true) {
            Node[] w = find(id);
            Node pred = w[0], curr = w[1];
            if (curr.key == id) {
                return false;
            }
            Node node = new Node(id, curr);
            if (pred.swing(curr, node, false)) {
                return true;
            }
        }
    }

    // ANCHOR: remove
    @Override
    public boolean remove(int id) {
        while (true) {
            Node[] w = find(id);
            Node pred = w[0], curr = w[1];
            if (curr.key != id) {
                return false;
            }
            if (unlink(pred, curr)) {
                return true;
            }
        }
    }

    /** Marks curr's link first (the logical delete), so nothing is linked behind curr again; then unlinks it. */
    boolean unlink(Node pred, Node curr) {
        Node succ = curr.next.get().node;
        if (!curr.swing(succ, succ, true)) {
            return false;  // curr changed (removed, or a node added behind it): search again
        }
        pred.swing(curr, succ, false);  // may fail: a later find unlinks it
        return true;
    }
    // ANCHOR_END: remove

    @Override
    public boolean contains(int id) {
        Node curr = head;
        while (curr.key < id) {
            curr = curr.next.get().node;
        }
        return curr.key == id && !curr.next.get().marked;
    }
}
