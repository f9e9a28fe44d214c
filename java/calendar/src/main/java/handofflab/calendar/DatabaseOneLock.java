package handofflab.calendar;

import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A coarse database for the lock probe: the kit's three requests, each under one lock around the whole database
 * (a synchronized method). Every answer is right (the race probe passes it), and a user joining one group waits
 * for another adding an event to another calendar: not the paper's per-entity locks (IndependentEntities).
 */
public class DatabaseOneLock extends CalendarDatabase {
    public DatabaseOneLock(Path root, String listKind) throws IOException {
        super(root, listKind);
    }

    @Override
    public synchronized Outcome join(int group, int user) throws IOException {  // the slip: one lock for every user
        return super.join(group, user);
    }

    @Override
    public synchronized Outcome deleteUser(int id) throws IOException {
        return super.deleteUser(id);
    }

    @Override
    public synchronized int addEvent(int calendar, Map<String, String> attributes) throws IOException {
        return super.addEvent(calendar, attributes);
    }
}
