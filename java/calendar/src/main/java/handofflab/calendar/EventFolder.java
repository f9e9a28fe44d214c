package handofflab.calendar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The mechanism of McBride &amp; Ferrell's event store, as specs/CalendarStore.tla models it: every
 * event in memory and on disk, one directory per event and one file per attribute. Its policy,
 * how a modify and a delete lock, is a subclass's: the kit's {@link EventStore}, the catalog's
 * buggy stores, and a student's in the lab "The calendar that forgets" (labs/calendar).
 *
 * <p>{@link #publish} writes a new version directory file by file and publishes it in one step:
 * it renames a fresh symbolic link over {@code events/ID}, which is atomic, and swaps the
 * event's immutable {@link Event} in memory. {@link #unpublish} removes the link. A load takes
 * no lock: it reads the published event. So a process killed at any instant leaves each event
 * as its last published version or, if never published, absent; opening the same folder again
 * loads exactly that and clears the half-written versions.
 *
 * <p>On disk: {@code events/ID -> ../versions/ID.V} (the published version of event ID) and
 * {@code versions/ID.V/ATTRIBUTE} (one file per attribute). Files are not fsynced: a killed
 * process loses nothing the kernel has, but a power cut may (see {@link #durable}). With no
 * root folder the store keeps nothing on disk, so that Lincheck can try every interleaving of
 * a policy.
 */
public abstract class EventFolder implements Events {
    /** One event's place in the store: its lock, and its published version. */
    public static final class Entry {
        /** The paper's per-entity lock: every change to this event is made holding it. */
        public final ReentrantLock lock = new ReentrantLock();
        volatile Event event;                             // the published version; null once deleted
        long version;                                     // guarded by lock

        Entry(Event event, long version) {
            this.event = event;
            this.version = version;
        }

        /**
         * The race probe's hold ({@link DatabaseTrials#raceProbe}): run after each read of this entity's
         * published version, so that a request can be held just after it looked. Package-private, so that
         * no policy sees it; null outside the probe.
         */
        volatile Runnable afterRead;

        /** The published version of the event; null once it is deleted. */
        public Event event() {
            Event seen = event;
            Runnable hold = afterRead;
            if (hold != null) {
                hold.run();
            }
            return seen;
        }
    }

    private final Path events;
    private final Path versions;
    private final CollectionList ids;                     // the paper's collection list of events
    private final Map<Integer, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger();
    private final AtomicLong nextTemp = new AtomicLong();
    private final Path reservedFile;                      // ids below the number in it may have been used
    private long reserved;                                // guarded by this
    private static final int ID_BLOCK = 1024;
    /** What opening the store cleared: versions and links a killed process left half-written or unpublished. */
    private int cleared;
    /** Whether writes are forced to the disk before they are published (survives a power cut too). */
    public volatile boolean durable;
    /**
     * The lock probe's hold ({@link StoreTrials#lockProbe}): called with the event's id at each
     * commit, where a policy holds the locks it takes. Package-private, so that no policy sees
     * it; null outside the probe.
     */
    volatile java.util.function.IntConsumer atCommit;

    /**
     * Opens (or creates) the store in {@code root}, its collection list of the given kind; with
     * {@code root} null, a store in memory only (what the checkers model-check: the same policy,
     * no files).
     */
    protected EventFolder(Path root, String listKind) throws IOException {
        this(root, listKind, "events");
    }

    /**
     * The same, for a collection of other entities (users, calendars, groups: {@link CalendarDatabase}):
     * their links are in {@code root/collection} instead of {@code root/events}.
     */
    protected EventFolder(Path root, String listKind, String collection) throws IOException {
        this.ids = CollectionList.create(listKind);
        if (root == null) {
            this.events = this.versions = this.reservedFile = null;
            return;
        }
        this.events = Files.createDirectories(root.resolve(collection));
        this.versions = Files.createDirectories(root.resolve("versions"));
        this.reservedFile = root.resolve("reserved-ids");
        recover();
    }

    /**
     * Gives the next events ids from {@code first} on (never lower than those given already). The
     * checkers start above the JVM's cache of small Integers (-128 to 127): below it every boxing of
     * one id is one object, so a store that locks on its boxed id looks correct there and is not.
     */
    public final void startIdsAt(int first) {
        nextId.accumulateAndGet(first, Math::max);
    }

    /** Creates an event; returns its id. */
    @Override
    public final int create(Map<String, String> attributes) throws IOException {
        int id = nextId.getAndIncrement();
        reserve(id);
        Entry entry = new Entry(null, 0);
        entry.lock.lock();
        try {
            entries.put(id, entry);
            publish(id, entry, new Event(id, attributes));
            ids.add(id);
        } finally {
            entry.lock.unlock();
        }
        return id;
    }

    /** Event {@code id}'s place in the store, or null if no event ever had that id. */
    protected final Entry entry(int id) {
        return entries.get(id);
    }

    /** Deletes the published event in one step (the link's removal is the commit point). Call it holding the lock. */
    protected final void unpublish(int id, Entry entry) throws IOException {
        pauseForProbe(id);  // where the lock probe holds a request (StoreTrials.lockProbe); a no-op in use
        if (events != null) {
            Files.delete(events.resolve(Integer.toString(id)));
        }
        entry.event = null;
        ids.remove(id);
        if (versions != null) {
            removeTree(versions.resolve(id + "." + entry.version));
        }
    }

    /** Event {@code id} as last published, if it exists. Takes no lock. */
    @Override
    public final Optional<Event> load(int id) {
        Entry entry = entries.get(id);
        return Optional.ofNullable(entry == null ? null : entry.event());
    }

    /** How many unpublished versions and links opening the store cleared away. */
    public final int cleared() {
        return cleared;
    }

    /** The ids of every entity this store ever held (published or deleted), in ascending order: a snapshot. */
    public final java.util.List<Integer> ids() {
        java.util.List<Integer> all = new java.util.ArrayList<>(entries.keySet());
        java.util.Collections.sort(all);
        return all;
    }

    /** Whether the store's collection list holds {@code id}. */
    public final boolean listed(int id) {
        return ids.contains(id);
    }

    // Every method the checkers read or call besides a store's own modify and delete is final here, so that
    // a submitted store (the calendar lab's) cannot answer for the state it is judged on.
    @Override
    public final int edit(Event seen, Map<String, String> changes, IfDeleted choice) throws IOException {
        return Events.super.edit(seen, changes, choice);
    }

    @Override
    public final void close() throws IOException {
    }

    // ANCHOR: publish
    /** Writes version V of the event file by file, then publishes it with one atomic rename. Call it holding the lock. */
    protected final void publish(int id, Entry entry, Event event) throws IOException {
        pauseForProbe(id);  // where the lock probe holds a request (StoreTrials.lockProbe); a no-op in use
        long version = entry.version + 1;
        if (events == null) {  // in memory only
            entry.version = version;
            entry.event = event;
            return;
        }
        Path dir = Files.createDirectories(versions.resolve(id + "." + version));
        for (Map.Entry<String, String> a : event.attributes.entrySet()) {
            Path file = dir.resolve(a.getKey());
            Files.write(file, a.getValue().getBytes(StandardCharsets.UTF_8));
            if (durable) {
                force(file);
            }
        }
        Path link = events.resolve(Integer.toString(id));
        Path temp = events.resolve(".link-" + id + "-" + nextTemp.getAndIncrement());
        Files.createSymbolicLink(temp, events.relativize(dir));
        Files.move(temp, link, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        long old = entry.version;
        entry.version = version;
        entry.event = event;
        if (old > 0) {
            removeTree(versions.resolve(id + "." + old));
        }
    }
    // ANCHOR_END: publish

    private void pauseForProbe(int id) {
        java.util.function.IntConsumer hold = atCommit;
        if (hold != null) {
            hold.accept(id);
        }
    }

    /** Loads every published event; clears what a killed process left half-written. */
    private void recover() throws IOException {
        int highest = -1;
        try (DirectoryStream<Path> links = Files.newDirectoryStream(events)) {
            for (Path link : links) {
                String name = link.getFileName().toString();
                if (name.startsWith(".link-")) {  // a link made but never renamed into place
                    Files.delete(link);
                    cleared++;
                    continue;
                }
                int id;
                long version;
                Path dir;
                try {
                    id = Integer.parseInt(name);
                    dir = events.resolve(Files.readSymbolicLink(link));
                    String v = dir.getFileName().toString();
                    version = Long.parseLong(v.substring(v.indexOf('.') + 1));
                } catch (NumberFormatException | IOException | UnsupportedOperationException e) {
                    throw new IOException(link + " is no entity of this store (a link " + events.getFileName() + "/ID -> ../versions/ID.V): "
                            + "move it out of " + events + " and open the store again", e);
                }
                Map<String, String> attributes = new TreeMap<>();
                try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                    for (Path f : files) {
                        attributes.put(f.getFileName().toString(), new String(Files.readAllBytes(f), StandardCharsets.UTF_8));
                    }
                }
                entries.put(id, new Entry(new Event(id, attributes), version));
                ids.add(id);
                highest = Math.max(highest, id);
            }
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(versions)) {
            for (Path dir : dirs) {  // versions never published, or replaced but not yet removed
                String[] idV = dir.getFileName().toString().split("\\.");
                Entry e = entries.get(Integer.parseInt(idV[0]));
                if (e == null || e.version != Long.parseLong(idV[1])) {
                    removeTree(dir);
                    cleared++;
                }
            }
        }
        try (DirectoryStream<Path> temps = Files.newDirectoryStream(reservedFile.getParent(), ".reserved-ids-*")) {
            for (Path t : temps) {  // a reservation written but never renamed into place
                Files.delete(t);
            }
        }
        // An id is never given twice, not even after a restart: a late modify of a deleted event must
        // never reach a new one under the same id. Ids are reserved on disk a block at a time.
        reserved = Files.exists(reservedFile)
                ? Long.parseLong(new String(Files.readAllBytes(reservedFile), StandardCharsets.UTF_8).trim()) : 0;
        nextId.set((int) Math.max(highest + 1, reserved));
    }

    /** Records on disk, before {@code id} is used, that ids up to a block beyond it are taken. */
    private synchronized void reserve(int id) throws IOException {
        if (id < reserved || reservedFile == null) {
            return;
        }
        long upTo = id + ID_BLOCK;
        Path temp = reservedFile.resolveSibling(".reserved-ids-" + nextTemp.getAndIncrement());
        Files.write(temp, Long.toString(upTo).getBytes(StandardCharsets.UTF_8));
        Files.move(temp, reservedFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        reserved = upTo;
    }

    private static void force(Path file) throws IOException {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    private static void removeTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
