package handofflab.dht;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * One process of the distributed table (the paper's distributed level): its part of the table
 * ({@link ThreadedTable} over a {@link SerialTable}), the {@link Target} that serves requests for
 * it, and the {@link Origin} through which this process's user thread reaches every target.
 *
 * <pre>
 * List&lt;Request&gt; batch = ...;
 * for (...) { batch.add(node.insert(key % p, key, n, values)); if (batch.size() == L) { node.await(batch); batch.clear(); } }
 * node.flush();   // collective: every process's requests are applied when it returns
 * </pre>
 *
 * One user thread per process, as in the paper: the initiations and waits of one node are not
 * meant to be called from several threads at once.
 */
public final class DhtNode implements Closeable {
    private final DhtConfig config;
    private final ThreadedTable table;
    private final Target target;
    private final Origin origin;
    private final List<Request> unawaited = new ArrayList<>();   // initiated, not yet passed to await

    public DhtNode(DhtConfig config) throws IOException {
        this(config, newTable(config), null);
    }

    private DhtNode(DhtConfig config, ThreadedTable table, Target started) throws IOException {
        this.config = config;
        this.table = table;
        this.target = started != null ? started : new Target(config, table);
        try {
            this.origin = new Origin(config);
        } catch (RuntimeException e) {
            target.close();
            throw e;
        }
    }

    private static ThreadedTable newTable(DhtConfig c) {
        return new ThreadedTable(new SerialTable(c.width, c.bucket, c.initialSlots, c.maxSlots));
    }

    /**
     * p processes' parts in this JVM, on loopback ports the system chooses (tests and demos; the kit's
     * multi-process runs use {@link DhtMain}). {@code like} gives every setting but the peers.
     */
    static List<DhtNode> inOneJvm(int p, DhtConfig like) throws IOException {
        List<java.net.InetSocketAddress> any = new ArrayList<>();
        for (int i = 0; i < p; i++) {
            any.add(java.net.InetSocketAddress.createUnresolved("127.0.0.1", 0));
        }
        List<Target> targets = new ArrayList<>();
        List<ThreadedTable> tables = new ArrayList<>();
        List<java.net.InetSocketAddress> peers = new ArrayList<>();
        for (int i = 0; i < p; i++) {
            DhtConfig c = like.with(i, any);
            tables.add(newTable(c));
            targets.add(new Target(c, tables.get(i)));
            peers.add(java.net.InetSocketAddress.createUnresolved("127.0.0.1", targets.get(i).port()));
        }
        List<DhtNode> nodes = new ArrayList<>();
        for (int i = 0; i < p; i++) {
            nodes.add(new DhtNode(like.with(i, peers), tables.get(i), targets.get(i)));
        }
        return nodes;
    }

    /** This process's part of the table: a test holds its lock to play a slow target, or slips a value in. */
    ThreadedTable localTable() {
        return table;
    }

    /** Ends this process's part at once, as if it were killed: no goodbye, no waiting for the others. */
    void crash() {
        target.close();
        origin.close();
    }

    public int id() {
        return config.id;
    }

    public int processes() {
        return config.processes();
    }

    public DhtConfig config() {
        return config;
    }

    /** HASH_Insert: n values (n × width ints) under key, on process {@code target}. Non-blocking. */
    public Request insert(int target, long key, int n, int[] values) {
        return remember(origin.insert(target, key, n, values));
    }

    /** HASH_Find: up to n of key's values on {@code target}, copied into {@code out} once awaited. Non-blocking. */
    public Request find(int target, long key, int n, int[] out) {
        return remember(origin.find(target, key, n, out));
    }

    /** HASH_Delete: removes up to n of key's values on {@code target}, copied into {@code out} once awaited. Non-blocking. */
    public Request delete(int target, long key, int n, int[] out) {
        return remember(origin.delete(target, key, n, out));
    }

    private Request remember(Request r) {
        unawaited.add(r);
        return r;
    }

    /** HASH_Wait: returns once each request is complete; throws a {@link DhtException} if a target died. */
    public void await(Collection<Request> requests) throws InterruptedException {
        try {
            origin.await(requests);
        } finally {
            unawaited.removeIf(Request::isDone);
        }
    }

    public void await(Request... requests) throws InterruptedException {
        await(Arrays.asList(requests));
    }

    /**
     * HASH_Flush, the collective barrier: completes this process's outstanding requests, then waits
     * until every process has done the same. When it returns, every request any process initiated
     * before its flush has been applied.
     */
    public void flush() throws InterruptedException {
        await(new ArrayList<>(unawaited));
        origin.await(List.of(origin.barrier()));
    }

    /** Values stored in this process's part of the table. */
    public long localSize() {
        return table.size();
    }

    /** Share of this process's service thread's time spent waiting to release a buffer (the paper's 40 % at q = 0). */
    public double serviceWaitingShare() {
        return target.waitingShare();
    }

    /** Where this process's target threads spent their time, as JSON fields (see Target.timeShares). */
    public String targetTimeShares() {
        return target.timeShares();
    }

    /** The port this process's target listens on. */
    public int port() {
        return target.port();
    }

    /**
     * Ends this process's part: closes its connections to every target, then waits (a few seconds at
     * most) until every other process has closed its connection here, so that no reply this target
     * still owes, such as the last barrier's, is cut off by the process ending.
     */
    @Override
    public void close() {
        origin.close();
        try {
            target.awaitOriginsClosed(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            target.close();
        }
    }
}
