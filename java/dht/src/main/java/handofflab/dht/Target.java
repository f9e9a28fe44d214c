package handofflab.dht;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The target side of one process: LAPI's execution model (Malard & Stewart, Sec. 2.2) over TCP.
 *
 * <ul>
 * <li>The <b>header handler</b>, one thread per incoming connection ({@link OriginConnection}), reads a request's
 *     header, takes a buffer from the {@link ReceiveBuffers} (waiting when none is free: that is the back-pressure an
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
 * Process 0's service thread also holds the collective barrier of HASH_Flush ({@link FlushBarrier}). The baseline
 * without buffers, service thread or table is {@link RawPut}.
 */
final class Target implements Closeable {
    private final DhtConfig config;
    private final ThreadedTable table;
    private final ServerSocket server;
    private final ReceiveBuffers buffers;
    final RawPut raw;
    private final BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>();
    private final List<OriginConnection> connections = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    // set once the completion queue is known to be broken (it keeps every buffer with its reply out, or gave one back
    // twice): the header handlers then receive nothing more and say so
    private volatile String kept;
    private final CountDownLatch originsEnded;   // one count per origin whose connection ended
    // owned by the service thread
    private final CompletionQueue completions;
    private final FlushBarrier barrier;
    private final ServiceClock clock = new ServiceClock();
    private volatile int handed;             // buffers handed to the queue (requests served); one writer, read by timeShares
    private int keptRounds;                  // idle rounds with every buffer kept

    Target(DhtConfig config, ThreadedTable table) throws IOException {
        this.config = config;
        this.table = table;
        this.originsEnded = new CountDownLatch(config.processes());
        this.raw = new RawPut(config.rawPut, config.width);
        this.barrier = new FlushBarrier(config.processes());
        this.buffers = new ReceiveBuffers(config.buffers, config.maxRequest * config.width);
        this.completions = CompletionQueue.create(config.completions, config.completionQueue, b -> {
            if (!buffers.giveBack(b)) {  // back twice: two requests would be read into it; the pool's put would wait for ever
                broken("target " + config.id + "'s completion queue (" + config.completions + ") gave a receive buffer "
                        + "back twice: two requests would be read into it at once. A buffer goes back once, after its "
                        + "reply is out");
            }
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

    /** Fraction of the service thread's time spent in its completion queue (see ServiceClock). */
    double waitingShare() {
        return clock.waitingShare();
    }

    /**
     * Where this target's threads spent the run so far, as JSON fields (ServiceClock.shares): ./lab bench dht reads
     * from them which thread holds the target back.
     */
    String timeShares() {
        long writer = 0;
        for (OriginConnection c : connections) {
            writer = Math.max(writer, c.writingNanos.get());
        }
        return clock.shares(writer, buffers.waitNanos(), handed);
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
                OriginConnection c = new OriginConnection(this, config, s);
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

    // What a connection's header handler asks of its target

    boolean isClosed() {
        return closed;
    }

    /** A free receive buffer, waiting while none is; null once the completion queue is known to keep them for good. */
    int[] takeBuffer() throws InterruptedException {
        return buffers.take(() -> kept != null, () -> closed);
    }

    /** Why the target receives nothing more (null while it does). */
    String brokenReason() {
        return kept;
    }

    /** A request read, for the service thread. */
    void receive(Incoming m) throws InterruptedException {
        inbox.put(m);
    }

    /** An origin's connection ended: a barrier must not wait for it. */
    void originEnded(OriginConnection c) {
        inbox.add(new Incoming(c, null, 0, 0, 0, null));
        originsEnded.countDown();
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
                        m = inbox.poll(50, TimeUnit.MILLISECONDS);
                    }
                    clock.idle(t);  // the run starts at its first request
                }
                if (m == null) {
                    return;
                }
                long start = System.nanoTime();
                serve(m);
                clock.served(start);
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
        keptRounds = handed - buffers.released() == buffers.count ? keptRounds + 1 : 0;
        if (kept == null && keptRounds >= 20) {
            broken("target " + config.id + "'s completion queue (" + config.completions + ") keeps all " + buffers.count
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
            barrier.arrive(m, b -> send(b, 0, Wire.OK));
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
        handed++;  // the service thread's alone
        completions.completed(m.buffer, sent);  // the buffer goes back once the reply is out
        clock.waited(t);
    }

    /** Hands the reply to the connection's writer; the future completes once it is written to the socket. */
    private CompletableFuture<Void> send(Incoming m, int done, byte status) {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        OriginConnection c = m.from;
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
        return originsEnded.await((long) (seconds * 1e3), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (OriginConnection c : connections) {
            try {
                c.socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        threads.forEach(Thread::interrupt);
    }
}
