package handofflab.calendar;

import handofflab.calendar.Events.Outcome;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the calendar's whole database does for its users, whoever keeps it: the kit's
 * {@link CalendarDatabase} (files and per-entity locks, as the paper built it) or a real database
 * ({@link SqliteDatabase}, the baseline the paper says "already handles concurrent transactions").
 * Users and groups each own a calendar; a calendar lists its events; a group lists its members.
 * Each request takes effect once, in some order; a delete takes what depends on it along.
 */
public interface Database extends AutoCloseable {
    /** Creates a user and the user's calendar; returns the user's id. */
    int createUser(String name) throws IOException;

    /** Creates a group and the group's calendar; returns the group's id. */
    int createGroup(String name) throws IOException;

    /** Makes {@code user} a member of {@code group}; DELETED if either was deleted. */
    Outcome join(int group, int user) throws IOException;

    /** Adds an event to {@code calendar}; its id, or -1 if the calendar was deleted. */
    int addEvent(int calendar, Map<String, String> attributes) throws IOException;

    /** Deletes a user: its memberships, its calendar and the calendar's events go too; GONE if it was not there. */
    Outcome deleteUser(int id) throws IOException;

    /** Deletes a group, its calendar and the calendar's events; GONE if it was not there. */
    Outcome deleteGroup(int id) throws IOException;

    /** A user as last committed: its {@code name} and {@code calendar}. */
    Optional<Event> user(int id) throws IOException;

    /** A group as last committed: {@code name}, {@code calendar} and a {@code member.ID} per member. */
    Optional<Event> group(int id) throws IOException;

    /** What a user sees of a calendar: its events; empty if it was deleted. */
    Optional<List<Event>> loadCalendar(int id) throws IOException;

    /** What is wrong with the references while no request is under way; empty when nothing is. */
    List<String> problems() throws IOException;

    /** How many users, groups, calendars and events are live. */
    Map<String, Integer> counts() throws IOException;

    @Override
    void close() throws IOException;
}
