package handofflab.calendar;

/**
 * Heller et al.'s lazy list (as in Herlihy &amp; Shavit, ch. 9): a sorted linked list with
 * sentinels. Searches take no lock; add and remove lock the two nodes they change, then
 * validate that both are still in the list and still adjacent, and start again if not.
 * A removal first marks its node (the logical delete), then unlinks it; contains reads
 * the mark, so it needs no lock either.
 */
public class LazyList implements CollectionList {
    static final class Node {
        final int key;
        volatile Node next;
        volatile boolean marked;

        Node(int key) {
            this.key = key;
        }
    }

    final Node head;

    public LazyList() {
        head = new Node(Integer.MIN_VALUE);
        head.next = new Node(Integer.MAX_VALUE);
    }

    // ANCHOR: validate
    /** Both still in the list, and pred still points at curr: nothing changed since the search. */
    boolean validate(Node pred, Node curr) {
        return !pred.marked && !curr.marked && pred.next == curr;
    }
    // ANCHOR_END: validate

    // ANCHOR: add
    @Override
    public boolean add(int id) {
        while (true) {
            Node[] w = search(id);
            Node pred = w[0], curr = w[1];
            synchronized (pred) {
                synchronized (curr) {
                    if (validate(pred, curr)) {
                        if (curr.key == id) {
                            return false;
                        }
                        Node node = new Node(id);
                        node.next = curr;
                        pred.next = node;
                        return true;
                    }
                }
            }
        }
    }
    // ANCHOR_END: add

    @Override
    public boolean remove(int id) {
        while (true) {
            Node[] w = search(id);
            Node pred = w[0], curr = w[1];
            synchronized (pred) {
                synchronized (curr) {
                    if (validate(pred, curr)) {
                        if (curr.key != id) {
                            return false;
                        }
                        curr.marked = true;      // the logical delete: contains now says no
                        pred.next = curr.next;   // then the physical one
                        return true;
                    }
                }
            }
        }
    }

    /** pred and curr with pred.key &lt; id &lt;= curr.key, found without a lock: validate before trusting them. */
    private Node[] search(int id) {
        Node pred = head, curr = head.next;
        while (curr.key < id) {
            pred = curr;
            curr = curr.next;
        }
        return new Node[] {pred, curr};
    }

    @Override
    public boolean contains(int id) {
        Node curr = head;
        while (curr.key < id) {
            curr = curr.next;
        }
        return curr.key == id && !curr.marked;
    }
}
