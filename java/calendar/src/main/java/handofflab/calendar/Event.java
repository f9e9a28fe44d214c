package handofflab.calendar;

import java.util.Map;
import java.util.TreeMap;

/**
 * One event as a load sees it: its attributes (date, time, name, ...), each of which the store
 * keeps in a file of its own. Immutable, so that a load holding one never sees half a modify.
 */
public final class Event {
    public final int id;
    public final Map<String, String> attributes;

    public Event(int id, Map<String, String> attributes) {
        this.id = id;
        this.attributes = java.util.Collections.unmodifiableMap(new TreeMap<>(attributes));
    }

    /** This event with some attributes changed (a move changes the date and the time). */
    public Event with(Map<String, String> changes) {
        Map<String, String> next = new TreeMap<>(attributes);
        next.putAll(changes);
        return new Event(id, next);
    }

    /** This event without the attribute {@code name} (a reference that is dropped: a member who left, an event removed). */
    public Event without(String name) {
        Map<String, String> next = new TreeMap<>(attributes);
        next.remove(name);
        return new Event(id, next);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Event && ((Event) o).id == id && ((Event) o).attributes.equals(attributes);
    }

    @Override
    public int hashCode() {
        return id * 31 + attributes.hashCode();
    }

    @Override
    public String toString() {
        return "event " + id + " " + attributes;
    }
}
