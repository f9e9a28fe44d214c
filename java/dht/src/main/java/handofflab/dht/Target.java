package handofflab.dht;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The target side of one process: LAPI's execution model (Malard & Stewart, Sec. 2.2) over TCP.
 *
 * <ul>
 * <li>The <b>header handler</b>, one thread per incoming connection, reads a request's header,
 *     takes a receive buffer from the pool (waiting when none is free: that is the back-pressure an
 *     origin feels) and reads the request's values into it.</li>
 * <li>The <b>service thread</b>, one per process as in LAPI, is the completion handler: it applies
 *     each request to the local {@link ThreadedTable} and hands the reply to the connection's
 *     writer.</li>
 * <li>A buffer may be released only once its reply has been sent, because a find's or a delete's
 *     reply is read out of it. The paper's cure for the completion handler waiting on that (40 % of
 *     its time): a <b>completion queue</b> of depth q, where the service thread leaves each request's
 *     state and waits only for the oldest, and only when more than q are in flight. q = 0 is the
 *     waiting the paper measured. The queue is a {@link CompletionQueue}: the kit's
 *     {@code DepthQueue}, a buggy one of the catalog, or a lab's submission.</li>
 * </ul>
 *
 * Process 0's service thread also holds the collective barrier of HASH_Flush: it answers the p
 * barrier requests of one flush together, once the last one has come.
 */
final class Target implements Closeable {
    private final DhtConfig config;
    private final ThreadedTable table;
    private final ServerSocket server;
    private final BlockingQueue<int[]> pool;
    private final BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>();
    private final List<Connection> connections = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    // What tells a completion queue that keeps buffers for ever from a slow machine (see checkKept):
    private final java.util.concurrent.atomic.AtomicInteger released = new java.util.concurrent.atomic.AtomicInteger();
    private int handed, keptRounds;          // the service thread's: buffers handed to the queue (requests served); idle rounds all kept
    // set once the completion queue is known to be broken (it keeps every buffer with its reply out, or gave one back
    // twice): the header handlers then receive nothing more and say so
    private volatile String kept;
    // the receive buffers in the pool, by identity: a buffer given back while it is there is given back twice
    private final java.util.Set<int[]> free = java.util.Collections.synchronizedSet(
            java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    /** The raw put's array, in ints: each origin owns RAW_INTS / p of it and names where its values go, as LAPI_Put does. */
    public static final int RAW_INTS = 1 << 22;
    private final int[] raw;                 // the raw-put baseline's array (empty unless config.rawPut)
    private final java.util.concurrent.CountDownLatch originsEnded;   // one count per origin whose connection ended
    // owned by the service thread
    private final CompletionQueue completions;
    private final List<Incoming> barrier = new ArrayList<>();
    private final java.util.Set<Integer> gone = new java.util.TreeSet<>();  // origins whose connection ended
    private long waitedNanos, servedNanos;   // the service thread's time in its completion queue, and all its time serving
    private long idleNanos;                  // the service thread's time waiting for a request (none in its inbox)
    // Where the other threads' time goes, for "which thread limits throughput" (issue 49): the header handlers'
    // waits for a free receive buffer (the pool's back-pressure), and each reply writer's time writing.
    private final java.util.concurrent.atomic.AtomicLong bufferWaitNanos = new java.util.concurrent.atomic.AtomicLong();
    private long firstNanos, lastNanos;      // the service thread's first request and the end of its last: the run's span

    /** One request, read and waiting for the service thread; {@code buffer} is null for a barrier, {@code op}
     *  null for the news that an origin's connection ended. */
    private static final class Incoming {
        final Connection from;
        final Op op;
        final long id, key;
        final int n;
        final int[] buffer;

        Incoming(Connection from, Op op, long id, long key, int n, int[] buffer) {
            this.from = from;
            this.op = op;
            this.id = id;
            this.key = key;
            this.n = n;
            this.buffer = buffer;
        }
    }

    Target(DhtConfig config, ThreadedTable table) throws IOException {
        this.config = config;
        this.table = table;
        this.originsEnded = new java.util.concurrent.CountDownLatch(config.processes());
        this.raw = new int[config.rawPut ? RAW_INTS : 0];
        this.pool = new ArrayBlockingQueue<>(config.buffers);
        for (int i = 0; i < config.buffers; i++) {
            int[] b = new int[config.maxRequest * config.width];
            pool.add(b);
            free.add(b);
        }
        this.completions = CompletionQueue.create(config.completions, config.completionQueue, b -> {
            if (!free.add(b)) {  // back twice: two requests would be read into it; the pool's put would wait for ever
                broken("target " + config.id + "'s completion queue (" + config.completions + ") gave a receive buffer "
                        + "back twice: two requests would be read into it at once. A buffer goes back once, after its "
                        + "reply is out");
                return;
            }
            released.incrementAndGet();      // first: a buffer counted back too soon can only delay checkKept
            pool.put(b);
        });
        InetSocketAddress me = config.peers.get(config.id);
        server = new ServerSocket();
        server.setReuseAddress(true);
        try {
            server.bind(new InetSocketAddress(me.getHostString(), me.getPort()));
        } catch (IOException e) {
            throw new DhtException("process " + config.id + " cannot listen on " + me.getHostString() + ":" + me.getPort()
                    + " (" + e.getMessage() + "): is another process on that port? Give this process a free one in --peers", e);
        }
        start("dht-accept-" + config.id, this::acceptLoop);
        start("dht-service-" + config.id, this::serviceLoop);
    }

    /** The port it listens on (the one asked for, or the one the system chose for port 0). */
    int port() {
        return server.getLocalPort();
    }

    /** Fraction of the service thread's time spent in its completion queue: waiting, mostly, for a reply to be sent
     *  before its buffer is released. */
    synchronized double waitingShare() {
        return servedNanos == 0 ? 0 : (double) waitedNanos / servedNanos;
    }

    /**
     * Where this target's threads spent the run so far, as JSON fields, each a share of the time from its first
     * request to the end of its last: the service thread applying requests to the table, waiting in its completion
     * queue, and idle with no request; the busiest reply writer writing; the header handlers waiting for a free receive
     * buffer (summed over them: above 1 when several wait at once). ./lab bench dht reads from them which thread holds
     * the target back.
     */
    synchronized String timeShares() {
        double span = Math.max(1, lastNanos - firstNanos);
        long writer = 0;
        for (Connection c : connections) {
            writer = Math.max(writer, c.writingNanos.get());
        }
        return String.format(java.util.Locale.ROOT, "\"service_table_share\": %.4f, \"service_queue_share\": %.4f, "
                        + "\"service_idle_share\": %.4f, \"writer_busy_share\": %.4f, \"buffer_wait_share\": %.4f, "
                + "\"target_requests\": %d",
                (servedNanos - waitedNanos) / span, waitedNanos / span, idleNanos / span, writer / span,
                bufferWaitNanos.get() / span, handed);
    }

    private void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                Connection c = new Connection(s);
                connections.add(c);
                start("dht-header-" + config.id + "-" + connections.size(), c::readLoop);
                start("dht-reply-" + config.id + "-" + connections.size(), c::writeLoop);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("dht target " + config.id + ": accept failed: " + e.getMessage());
                }
                return;
            }
        }
    }

    /** One origin's connection: its header handler (readLoop) and its reply writer (writeLoop). */
    private final class Connection {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;
        final BlockingQueue<Runnable> replies = new LinkedBlockingQueue<>();  // each writes one reply to `out`
        volatile boolean writerEnded;   // once true, nothing takes from `replies` any more: whoever adds, runs
        volatile String origin = "an origin not yet identified";
        volatile int originId = -1;
        final java.util.concurrent.atomic.AtomicLong writingNanos = new java.util.concurrent.atomic.AtomicLong();  // its writer's

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
            this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
        }

        void readLoop() {
            try {
                int from = Wire.readHello(in, config, "the process connecting to process " + config.id);
                origin = "origin " + from;
                originId = from;
                synchronized (out) {
                    Wire.hello(out, config, config.id);
                }
                while (!closed) {
                    int code = in.readUnsignedByte();
                    long id = in.readLong(), key = in.readLong();
                    int n = in.readInt();
                    if (code >= Op.values().length || n < 0 || n > config.maxRequest) {
                        // the kit's origin never sends this; another program might: refuse it and stop reading
                        reply(() -> error(id, code >= Op.values().length ? "an unknown operation " + code
                                : "a request of " + n + " values; this target's buffers hold " + config.maxRequest));
                        return;
                    }
                    Op op = Op.values()[code];
                    if (config.rawPut && (op == Op.INSERT || op == Op.FIND)) {
                        if (!raw(op, id, key, n)) {
                            return;
                        }
                        continue;
                    }
                    int[] buffer = op == Op.BARRIER ? null : takeBuffer();  // a held barrier must not hold a buffer
                    if (op != Op.BARRIER && buffer == null) {
                        reply(() -> error(id, kept));
                        return;
                    }
                    if (op == Op.INSERT) {
                        Wire.readInts(in, buffer, n * config.width);
                    }
                    inbox.put(new Incoming(this, op, id, key, n, buffer));
                }
            } catch (IOException | DhtException e) {
                if (!closed && !(e instanceof java.io.EOFException)) {
                    System.err.println("dht target " + config.id + ": " + origin + ": " + e.getMessage());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                replies.add(() -> { });   // wake the writer so it sees the end
                if (originId >= 0) {
                    inbox.add(new Incoming(this, null, 0, 0, 0, null));  // a barrier must not wait for it
                    originsEnded.countDown();
                }
            }
        }

        /**
         * The benchmark's baseline, the paper's LAPI_Put: the values go straight from the socket into the array at
         * the address the origin names (in {@code key}), and the reply follows. No receive buffer, no service thread,
         * no table: what is left is the transport and one thread handoff to the writer. A FIND is the raw get that
         * checks the run afterwards (untimed): it returns what that address holds. False: an address outside the
         * array, refused, and this connection reads no more.
         */
        private boolean raw(Op op, long id, long address, int n) throws IOException {
            int count = n * config.width;
            if (address < 0 || address > raw.length - count) {
                reply(() -> error(id, "a raw " + (op == Op.INSERT ? "put" : "get") + " of " + count + " ints at address "
                        + address + ": this target's array holds " + raw.length));
                return false;
            }
            int at = (int) address;
            if (op == Op.INSERT) {
                Wire.readInts(in, raw, at, count);  // this connection's own thread: the origin owns this part of the array
                reply(() -> {
                    out.writeLong(id);
                    out.writeByte(Wire.OK);
                    out.writeInt(n);
                });
            } else {
                int[] held = Arrays.copyOfRange(raw, at, at + count);
                reply(() -> {
                    out.writeLong(id);
                    out.writeByte(Wire.OK);
                    out.writeInt(n);
                    Wire.writeInts(out, held, count);
                });
            }
            return true;
        }

        /** A free receive buffer, waiting while none is (back-pressure); null once the completion queue is known to keep
         *  every buffer for good. */
        private int[] takeBuffer() throws InterruptedException {
            if (kept != null) {
                return null;
            }
            int[] b = pool.poll();
            if (b != null) {
                free.remove(b);
                return b;
            }
            long t = System.nanoTime();
            try {
                return waitForBuffer();
            } finally {
                bufferWaitNanos.addAndGet(System.nanoTime() - t);
            }
        }

        private int[] waitForBuffer() throws InterruptedException {
            while (true) {
                int[] b = pool.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS);
                if (b != null) {
                    free.remove(b);
                    return b;
                }
                if (kept != null || closed) {
                    return null;
                }
            }
        }

        /** Writes replies as they come, flushing when none is waiting: many replies share a packet under load. */
        void writeLoop() {
            try {
                while (!closed) {
                    Runnable r = replies.take();
                    long t = System.nanoTime();
                    synchronized (out) {
                        r.run();
                        if (replies.isEmpty()) {
                            out.flush();
                        }
                    }
                    writingNanos.addAndGet(System.nanoTime() - t);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // the origin is gone, or the network between cut it: its replies cannot be sent, and the futures say so
            } finally {
                writerEnded = true;
                try {
                    socket.close();   // so that every reply still to come fails at once (see send)
                } catch (IOException e) {
                    // closed either way
                }
                runUnwritten();
            }
        }

        /** Each reply no writer will take: run here, where it completes its future, exceptionally as the socket is closed. */
        private void runUnwritten() {
            for (Runnable r; (r = replies.poll()) != null; ) {
                r.run();
            }
        }

        /**
         * A reply for the writer. One handed after the writer ended (its connection broke while the service thread
         * worked) is run here: left in the queue, its future would never complete, and a service thread waiting for
         * it in the completion queue would hold every other origin's replies for ever.
         */
        void hand(Runnable write) {
            replies.add(write);
            if (writerEnded) {
                runUnwritten();
            }
        }

        void reply(IoWrite write) {
            hand(() -> {
                try {
                    write.run();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }

        void error(long id, String message) throws IOException {
            out.writeLong(id);
            out.writeByte(Wire.ERROR);
            out.writeInt(0);
            out.writeUTF(message);
        }
    }

    @FunctionalInterface
    private interface IoWrite {
        void run() throws IOException;
    }

    /** The completion handler: one thread applies every request, in arrival order per connection. */
    private void serviceLoop() {
        try {
            while (!closed) {
                Incoming m = inbox.poll();
                if (m == null) {
                    long t = System.nanoTime();
                    completions.idle();  // idle: give back the buffers whose replies are out
                    while (m == null && !closed) {  // and wait for the next request, looking for a queue that keeps them all
                        checkKept();
                        m = inbox.poll(50, java.util.concurrent.TimeUnit.MILLISECONDS);
                    }
                    synchronized (this) {
                        idleNanos += firstNanos == 0 ? 0 : System.nanoTime() - t;   // the run starts at its first request
                    }
                }
                if (m == null) {
                    return;
                }
                long start = System.nanoTime();
                serve(m);
                synchronized (this) {
                    lastNanos = System.nanoTime();
                    firstNanos = firstNanos == 0 ? start : firstNanos;
                    servedNanos += lastNanos - start;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The service thread, idle since its queue's {@code idle()}: if every buffer is inside the completion queue (handed
     * to it, never given back), the queue keeps more than q of them while the service thread is not waiting for any,
     * and it lost them or keeps them for ever: a header handler would wait for ever, and so would its origin. A
     * correct queue never gets there however busy the machine (there are q + 4 buffers, and it keeps at most q once
     * idle). It must hold over 20 rounds of 50 ms, for a queue whose buffers come back from another thread.
     */
    private void checkKept() {
        keptRounds = handed - released.get() == config.buffers ? keptRounds + 1 : 0;
        if (kept == null && keptRounds >= 20) {
            broken("target " + config.id + "'s completion queue (" + config.completions + ") keeps all " + config.buffers
                    + " receive buffers while the service thread is idle (q is " + config.completionQueue + "): no request"
                    + " can be received any more. A buffer must go back to the pool once its reply is out, and the"
                    + " service thread must wait for the oldest reply when more than q are in flight");
        }
    }

    /** The completion queue is broken: said once, on standard error, and to every origin whose request comes next. */
    private synchronized void broken(String why) {
        if (kept == null) {
            kept = why;
            System.err.println("dht target " + config.id + ": " + why);
        }
    }

    private void serve(Incoming m) throws InterruptedException {
        if (m.op == null || m.op == Op.BARRIER) {
            if (m.op == null) {
                gone.add(m.from.originId);
            } else {
                barrier.add(m);
            }
            // A process that ended can never reach the barrier: the others must hear it, not wait for ever.
            // (After the last flush every process ends, and no barrier is pending then.)
            if (!barrier.isEmpty() && !gone.isEmpty()) {
                for (Incoming b : barrier) {
                    b.from.reply(() -> b.from.error(b.id, "process " + gone.iterator().next() + " ended before it reached "
                            + "the barrier of HASH_Flush"));
                }
                barrier.clear();
            } else if (barrier.size() == config.processes()) {  // the last process has flushed: release them all
                for (Incoming b : barrier) {
                    send(b, 0, Wire.OK);
                }
                barrier.clear();
            }
            return;
        }
        int done;
        byte status = Wire.OK;
        switch (m.op) {
            case INSERT:
                done = table.insert(m.key, m.n, m.buffer);
                status = done < m.n ? Wire.FULL : Wire.OK;
                break;
            case FIND:
                done = table.find(m.key, m.n, m.buffer);
                break;
            default:
                done = table.delete(m.key, m.n, m.buffer);
        }
        CompletableFuture<Void> sent = send(m, done, status);
        long t = System.nanoTime();   // from here: the time the queue holds the service thread, its waits above all
        handed++;
        completions.completed(m.buffer, sent);  // the buffer goes back once the reply is out
        synchronized (this) {
            waitedNanos += System.nanoTime() - t;
        }
    }

    /** Hands the reply to the connection's writer; the future completes once it is written to the socket. */
    private CompletableFuture<Void> send(Incoming m, int done, byte status) {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        Connection c = m.from;
        c.hand(() -> {
            try {
                if (closed || c.socket.isClosed()) {
                    throw new IOException("connection closed");
                }
                c.out.writeLong(m.id);
                c.out.writeByte(status);
                c.out.writeInt(done);
                if (m.op.returnsValues()) {
                    Wire.writeInts(c.out, m.buffer, done * config.width);
                }
                sent.complete(null);
            } catch (IOException | RuntimeException e) {
                sent.completeExceptionally(e);
            }
        });
        return sent;
    }

    /**
     * Waits until every origin has closed its connection, so a process that ends right after the last
     * flush does not take the others' barrier replies down with it; false if {@code seconds} passed.
     */
    boolean awaitOriginsClosed(double seconds) throws InterruptedException {
        return originsEnded.await((long) (seconds * 1e3), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (Connection c : connections) {
            try {
                c.socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        threads.forEach(Thread::interrupt);
    }
}
