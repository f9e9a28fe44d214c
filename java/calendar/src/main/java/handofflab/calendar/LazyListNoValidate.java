package handofflab.calendar;

/**
 * A buggy lazy list: it locks the two nodes its search found but never checks that they are
 * still in the list. An add can link its node after a predecessor that a concurrent remove
 * has just unlinked, and the new entity is lost: add said true, contains says false.
 */
public final class LazyListNoValidate extends LazyList {
    @Override
    boolean validate(Node pred, Node curr) {
        return true;  // the slip: the search's view is trusted after the locks are taken
    }
}
