package handofflab.calendar;

import java.util.concurrent.ConcurrentSkipListSet;

/** The baseline a user would pick: the JDK's lock-free skip list. */
public final class SkipListSet implements CollectionList {
    private final ConcurrentSkipListSet<Integer> ids = new ConcurrentSkipListSet<>();

    @Override
    public boolean add(int id) {
        return ids.add(id);
    }

    @Override
    public boolean remove(int id) {
        return ids.remove(id);
    }

    @Override
    public boolean contains(int id) {
        return ids.contains(id);
    }
}
