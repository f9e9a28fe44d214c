package handofflab.handoffs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Trace validation's recorder, wrapped around any handoff: every put and take is logged from
 * outside the class, as it begins and as it returns (or throws), on one logical clock read just
 * before the call and just after it. The class is not changed and need not cooperate. TLC then
 * decides whether some order of the calls' effects, each inside its call, is a behaviour of the
 * design's spec (specs/*Trace.tla); the clock keeps every call that ended before another began
 * before it. Used by the checks' recorder (TraceRecord) and by a server run with --trace.
 *
 * <p>Each item put gets the next id (1, 2, ...), and a take is logged with the id of the item it
 * returned, by identity: -1 for null, 0 for an item that was never put. A kit class that logs its
 * steps ({@link Stepped}: the parallel hash table's slot accesses) logs them on the same clock, as
 * op "slot" with the slot's number; a submitted class cannot, and is judged by its calls alone.
 * Threads are numbered as the spec's lanes: 0 for the thread named "acceptor" (100 + N for
 * "acceptor-N" of several: a stress trial's), then 1, 2, ... in the order of their first call. Used
 * also by the stress check with tracing on. {@link #stop()} ends the log (a server stops it before its
 * shutdown STOP items), and so does its {@link #MAX_EVENTS}th event (unless told another number): a
 * worker that probes empty slots for ever logs a step per probe, and TLC judges what came first (a
 * prefix of a behaviour is one), not a million probes.
 */
public final class RecordedHandoff<T> implements Handoff<T> {
    /**
     * One logged event: {@code kind} is begin, end or threw and {@code op} put or take (a call,
     * {@code slot} -1); or {@code op} is slot and {@code kind} get, set or swap (a step on slot
     * {@code slot}, {@code id} what it read or wrote).
     */
    public static final class Event {
        public final long clock;
        public final int thread;
        public final String kind, op;
        public final int id, slot;

        Event(long clock, int thread, String kind, String op, int id, int slot) {
            this.clock = clock;
            this.thread = thread;
            this.kind = kind;
            this.op = op;
            this.id = id;
            this.slot = slot;
        }
    }

    /** One thread's lane number and its events (read by events() while the thread may still add). */
    private static final class Lane {
        final int number;
        final List<Event> events = Collections.synchronizedList(new ArrayList<>());

        Lane(int number) {
            this.number = number;
        }
    }

    /** The log's length at most, unless told: a run of 200 puts with the hash table's steps logs about 2 000. */
    public static final int MAX_EVENTS = 20_000;
    private final long maxEvents;

    private final Handoff<T> inner;
    private final AtomicLong clock = new AtomicLong();
    private final AtomicLong calls = new AtomicLong();
    private final AtomicInteger nextThread = new AtomicInteger(1);
    private final Map<Thread, Lane> lanes = new ConcurrentHashMap<>();
    private final Map<Object, Integer> ids = Collections.synchronizedMap(new IdentityHashMap<>());
    private final AtomicInteger nextId = new AtomicInteger(1);
    private volatile boolean stopped;

    /**
     * {@code -Dhandofflab.trace.calls=true}: record the calls alone, as a student's class is recorded (it logs no
     * steps of its own), so that a catalogued trace claim can be shown to rest on calls (./lab check trace).
     */
    static final boolean CALLS_ONLY = Boolean.getBoolean("handofflab.trace.calls");

    public RecordedHandoff(Handoff<T> inner) {
        this(inner, MAX_EVENTS);
    }

    /** A log that ends at its {@code maxEvents}th event (a stress trial's: ./lab check trace --stress). */
    public RecordedHandoff(Handoff<T> inner, long maxEvents) {
        this.inner = inner;
        this.maxEvents = maxEvents;
        if (inner instanceof Stepped && !CALLS_ONLY) {
            ((Stepped) inner).recordSteps((kind, slot, item) -> log(kind, "slot", idOf(item), slot));
        }
    }

    /** An item's id by identity: -1 for null, 0 for one that was never put. */
    private int idOf(Object item) {
        return item == null ? -1 : ids.getOrDefault(item, 0);
    }

    @Override
    public void put(T item) throws InterruptedException {
        int id = nextId.getAndIncrement();
        ids.put(item, id);  // before the call: a take may return it before put does
        log("begin", "put", id, -1);
        try {
            inner.put(item);
        } catch (RuntimeException | Error e) {  // no design throws: an event the trace spec cannot read
            log("threw", "put", id, -1);
            throw e;
        }
        log("end", "put", id, -1);
    }

    @Override
    public T take() throws InterruptedException {
        log("begin", "take", 0, -1);
        T item;
        try {
            item = inner.take();
        } catch (RuntimeException | Error e) {
            log("threw", "take", 0, -1);
            throw e;
        }
        log("end", "take", idOf(item), -1);
        return item;
    }

    /**
     * How many calls began or returned so far: it stands still when no call does, even while a
     * thread takes steps (a worker probing empty slots forever hands nothing over).
     */
    public long calls() {
        return calls.get();
    }

    /** Whether the log ended at its last event while the run went on. */
    public boolean full() {
        return clock.get() > maxEvents;
    }

    /** Ends the log: calls after this are made but not logged. */
    public void stop() {
        stopped = true;
    }

    /** Every event logged so far, in clock order (threads still running may add more). */
    private List<Event> events() {
        List<Event> all = new ArrayList<>();
        for (Lane lane : lanes.values()) {
            synchronized (lane.events) {
                all.addAll(lane.events);
            }
        }
        all.sort(Comparator.comparingLong(e -> e.clock));
        return all;
    }

    /**
     * Writes every event logged so far to {@code out} as CSV, {@code clock,thread,kind,op,id,slot} (what
     * ./lab check trace reads), making its folder; returns how many it wrote.
     */
    public int writeTo(Path out) throws IOException {
        List<Event> events = events();
        StringBuilder csv = new StringBuilder("clock,thread,kind,op,id,slot\n");
        for (Event e : events) {
            csv.append(e.clock).append(',').append(e.thread).append(',').append(e.kind).append(',')
                    .append(e.op).append(',').append(e.id).append(',').append(e.slot).append('\n');
        }
        Path folder = out.toAbsolutePath().getParent();
        if (folder != null) {
            Files.createDirectories(folder);
        }
        Files.write(out, csv.toString().getBytes(StandardCharsets.UTF_8));
        return events.size();
    }

    /** "acceptor" is lane 0; "acceptor-N", one of several (a stress trial's), is lane 100 + N; others 1, 2, ... */
    private int laneOf(String name) {
        if (name.equals("acceptor")) {
            return 0;
        }
        if (name.matches("acceptor-[1-9]\\d?")) {
            return 100 + Integer.parseInt(name.substring("acceptor-".length()));
        }
        return nextThread.getAndIncrement();
    }

    private void log(String kind, String op, int id, int slot) {
        if (stopped) {
            return;
        }
        Lane lane = lanes.computeIfAbsent(Thread.currentThread(),
                t -> new Lane(laneOf(t.getName())));
        if (slot < 0) {
            calls.incrementAndGet();  // counted even past MAX_EVENTS: a hang is told from a spin by it
        }
        long tick = clock.incrementAndGet();
        if (tick <= maxEvents) {
            lane.events.add(new Event(tick, lane.number, kind, op, id, slot));
        }
    }
}
