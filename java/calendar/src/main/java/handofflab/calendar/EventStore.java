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
 * McBride &amp; Ferrell's event store, as specs/CalendarStore.tla models it: every event in memory
 * and on disk, one directory per event and one file per attribute.
 *
 * <p>A modify locks its event, checks that it still exists (else it is refused: "this event was
 * deleted"), writes a new version directory file by file, and publishes it in one step: it
 * renames a fresh symbolic link over {@code events/ID}, which is atomic, and swaps the event's
 * immutable {@link Event} in memory. A delete takes the same lock and removes the link. A load
 * takes no lock: it reads the published event. So a process killed at any instant leaves each
 * event as its last published version or, if never published, absent; {@link #EventStore(Path,
 * String)} on the same folder loads exactly that and clears the half-written versions.
 *
 * <p>On disk: {@code events/ID -> ../versions/ID.V} (the published version of event ID) and
 * {@code versions/ID.V/ATTRIBUTE} (one file per attribute). Files are not fsynced: a killed
 * process loses nothing the kernel has, but a power cut may (see {@link #durable}).
 */
public final class EventStore implements Events {
    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();  // the paper's per-entity lock
        volatile Event event;                             // the published version; null once deleted
        long version;                                     // guarded by lock

        Entry(Event event, long version) {
            this.event = event;
            this.version = version;
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

    /** Opens (or creates) the store in {@code root}, its collection list of the given kind. */
    public EventStore(Path root, String listKind) throws IOException {
        this.events = Files.createDirectories(root.resolve("events"));
        this.versions = Files.createDirectories(root.resolve("versions"));
        this.ids = CollectionList.create(listKind);
        this.reservedFile = root.resolve("reserved-ids");
        recover();
    }

    /** Creates an event; returns its id. */
    @Override
    public int create(Map<String, String> attributes) throws IOException {
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

    // ANCHOR: modify
    /** Changes some attributes of event {@code id}; DELETED if it was deleted (or never was). */
    @Override
    public Outcome modify(int id, Map<String, String> changes) throws IOException {
        Entry entry = entries.get(id);
        if (entry == null) {
            return Outcome.DELETED;
        }
        entry.lock.lock();
        try {
            Event now = entry.event;
            if (now == null) {  // deleted while this request waited for the lock: refuse, never re-create
                return Outcome.DELETED;
            }
            publish(id, entry, now.with(changes));
            return Outcome.OK;
        } finally {
            entry.lock.unlock();
        }
    }
    // ANCHOR_END: modify

    /** Deletes event {@code id}; GONE if it was not there. */
    @Override
    public Outcome delete(int id) throws IOException {
        Entry entry = entries.get(id);
        if (entry == null) {
            return Outcome.GONE;
        }
        entry.lock.lock();
        try {
            if (entry.event == null) {
                return Outcome.GONE;
            }
            Files.delete(events.resolve(Integer.toString(id)));  // the commit point: the link is gone
            entry.event = null;
            ids.remove(id);
            removeTree(versions.resolve(id + "." + entry.version));
            return Outcome.OK;
        } finally {
            entry.lock.unlock();
        }
    }

    /** Event {@code id} as last published, if it exists. Takes no lock. */
    @Override
    public Optional<Event> load(int id) {
        Entry entry = entries.get(id);
        return Optional.ofNullable(entry == null ? null : entry.event);
    }

    /** How many unpublished versions and links opening the store cleared away. */
    public int cleared() {
        return cleared;
    }

    /** Whether the store's collection list holds {@code id}. */
    public boolean listed(int id) {
        return ids.contains(id);
    }

    // ANCHOR: publish
    /** Writes version V of the event file by file, then publishes it with one atomic rename. */
    private void publish(int id, Entry entry, Event event) throws IOException {
        long version = entry.version + 1;
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
                    throw new IOException(link + " is no event of this store (a link events/ID -> ../versions/ID.V): "
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
        if (id < reserved) {
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
