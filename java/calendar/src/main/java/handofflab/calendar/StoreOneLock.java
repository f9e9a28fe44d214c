package handofflab.calendar;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A store that is correct and slow: one lock for the whole store instead of the paper's lock per
 * entity. Every outcome is one of the six orderings, but a user's request waits for every other
 * user's, whatever event it is for: the store serves one request at a time. The lock probe
 * ({@code ./lab check java StoreOneLock}) shows a move of one event waiting for a move of another.
 */
public final class StoreOneLock extends EventStore {
    private final Object storeLock = new Object();

    public StoreOneLock(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        synchronized (storeLock) {  // the slip: every event's requests wait here, one at a time
            return super.modify(id, changes);
        }
    }

    @Override
    public Outcome delete(int id) throws IOException {
        synchronized (storeLock) {
            return super.delete(id);
        }
    }
}
