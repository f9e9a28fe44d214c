package handofflab.calendar;

/**
 * One of the store's collections (all events, calendars, users or groups) as a set of entity
 * ids: McBride &amp; Ferrell's "collection list", whose kind the store picks at run time.
 * Each operation is linearizable: it takes effect at one instant between its call and return.
 */
public interface CollectionList {
    /** Adds {@code id}; false if it was already there. */
    boolean add(int id);

    /** Removes {@code id}; false if it was not there. */
    boolean remove(int id);

    /** Whether {@code id} is there. */
    boolean contains(int id);

    /** A new, empty list of the kind named by its class's simple name (e.g. "LazyList"). */
    static CollectionList create(String kind) {
        try {
            return (CollectionList) Class.forName(CollectionList.class.getPackageName() + "." + kind)
                    .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("no collection list named '" + kind + "' in "
                    + CollectionList.class.getPackageName(), e);
        }
    }
}
