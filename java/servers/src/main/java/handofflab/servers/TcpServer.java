package handofflab.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The abstract server every design extends (the paper's TCPServer, Roussev &amp; Wu 2001, Fig. 2):
 * it owns the listening socket and {@link #handleRequest}; a design decides only which thread
 * accepts and how the accepted connection reaches the thread that serves it.
 *
 * <p>Life cycle: the constructor binds (so a port in use fails at once), {@link #start} starts the
 * design's threads, {@link #shutdown} stops accepting, serves every connection already accepted,
 * and returns once the design's threads are gone and the port is free.
 */
public abstract class TcpServer {
    protected final ServerConfig config;
    protected final ServerStats stats = new ServerStats();
    private final ServerSocket listener;
    private volatile boolean stopping;
    private volatile boolean sweeping;  // shutdown's last phase: what is still queued is refused, not served

    protected TcpServer(ServerConfig config) throws IOException {
        config.validate();
        this.config = config;
        Protocol.preload();  // before any connection can use up the file descriptors it would take
        listener = new ServerSocket();
        listener.setReuseAddress(true);
        try {
            listener.bind(new InetSocketAddress(InetAddress.getByName(config.bind()), config.port()), config.backlog());
        } catch (BindException e) {
            listener.close();
            if (String.valueOf(e.getMessage()).contains("in use")) {
                throw new BindException("port " + config.port() + " on " + config.bind() + " is in use (" + e.getMessage()
                        + "): stop the other server, or pick another port with --port (0: any free port)");
            }
            throw new BindException("cannot listen on " + config.bind() + ":" + config.port() + " (" + e.getMessage()
                    + "): --bind takes an address of this machine, e.g. 127.0.0.1 or 0.0.0.0 (all of them)");
        }
    }

    /** Starts the design's threads; returns at once. */
    public abstract void start();

    /**
     * Waits (until {@code deadlineNanos}) for the design's threads to serve what was accepted and
     * exit; the listener is already closed. Returns false when something was left unserved.
     */
    protected abstract boolean drain(long deadlineNanos) throws InterruptedException;

    /**
     * Stops accepting and serves what was accepted, within {@code graceMs}. False: it could not.
     *
     * <p>Connections the kernel completed but no thread had accepted yet are clients that connected and
     * may have sent their request; closing the listener would reset them unseen (a LockedAccept server
     * once served 51, reset 90 such clients and reported "stopped cleanly"). So, before it closes: the
     * design's threads get up to half the grace to accept as many as were queued when the stop began
     * (Linux tells the queue's length; the queue is first in, first out), and they are served like the
     * rest; then this thread accepts what is left, closes each unread and counts it as {@code
     * REFUSED_AT_SHUTDOWN}, until the queue stays empty for {@link #SWEEP_MS} or the grace ends. Every
     * connection a client made is then in the ledger, as served or as refused by the server.
     */
    public final boolean shutdown(long graceMs) throws InterruptedException {
        long deadline = System.nanoTime() + graceMs * 1_000_000;
        stopping = true;
        long queued = kernelQueue(port());
        long acceptedAtStop = stats.accepted();
        long acceptBy = System.nanoTime() + graceMs * 500_000;
        while (queued > 0 && stats.accepted() - acceptedAtStop < queued && System.nanoTime() < acceptBy) {
            Thread.sleep(5);
        }
        sweeping = true;  // from here a design's thread that still accepts refuses what it gets, and stops
        try {
            listener.setSoTimeout(SWEEP_MS);  // the design's threads' next accepts time out too, and stop
            while (System.nanoTime() < deadline) {
                refuse(listener.accept());
            }
        } catch (IOException e) {
            // SocketTimeoutException: the queue stayed empty; any other: the listener is unusable, close it
        }
        try {
            listener.close();
        } catch (IOException e) {
            // closing a listener only fails when it is already closed
        }
        return drain(deadline);
    }

    /** A connection accepted in the shutdown's sweep: counted in the ledger, reset unread. */
    private void refuse(Socket s) {
        stats.countAccepted();
        stats.problem(ServerStats.Problem.REFUSED_AT_SHUTDOWN);
        try {
            s.setSoLinger(true, 0);  // a reset now, not a reply the client would wait for
            s.close();
        } catch (IOException e) {
            // already gone: it is counted all the same
        }
    }

    /** How long the queue must stay empty before the listener closes at shutdown. */
    static final int SWEEP_MS = 50;

    /**
     * How many connections wait in the kernel's accept queue of the socket listening on {@code port}:
     * on Linux, the LISTEN socket's rx_queue in /proc/net/tcp and tcp6 is that queue's length. -1 where
     * it cannot be read (another system); the shutdown then goes straight to its sweep.
     */
    static long kernelQueue(int port) {
        String hexPort = String.format(":%04X", port);
        long found = -1;
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(table));
            } catch (IOException | RuntimeException e) {
                continue;
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx_queue:rx_queue ...; st 0A is LISTEN
                if (f.length > 4 && f[1].endsWith(hexPort) && f[3].equals("0A")) {
                    found = Math.max(found, 0) + Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16);
                }
            }
        }
        return found;
    }

    public final int port() {
        return listener.getLocalPort();
    }

    public final ServerStats stats() {
        return stats;
    }

    public final ServerConfig config() {
        return config;
    }

    protected final boolean stopping() {
        return stopping;
    }

    /** The next connection, or null once the server is stopping. Failures of accept are counted, not fatal. */
    protected final Socket accept() {
        while (true) {
            try {
                Socket s = listener.accept();
                if (sweeping) {
                    refuse(s);
                    return null;
                }
                stats.countAccepted();
                return s;
            } catch (SocketTimeoutException e) {
                return null;  // only in the shutdown's sweep, which set the timeout
            } catch (SocketException e) {
                if (stopping) {
                    return null;
                }
                stats.problem(ServerStats.Problem.ACCEPT_FAILED);
                pause();
            } catch (IOException e) {
                stats.problem(ServerStats.Problem.ACCEPT_FAILED);
                pause();
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);  // e.g. out of file descriptors: let workers close some
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What an accepting thread does with each connection. */
    @FunctionalInterface
    protected interface ConnectionSink {
        void take(Socket s) throws InterruptedException;
    }

    /** The accept loop every design runs: accept and pass on, until the server stops. */
    protected final void acceptEach(ConnectionSink sink) throws InterruptedException {
        for (Socket s = accept(); s != null; s = accept()) {
            sink.take(s);
        }
    }

    /**
     * The accept loop for a sink that never waits (it serves, starts or queues at once). A sink
     * that cannot (no thread can be started: out of memory or processes) closes that connection,
     * counted, and the loop goes on: the server serves again once the pressure ends.
     */
    protected final void acceptEachAtOnce(Consumer<Socket> sink) {
        for (Socket s = accept(); s != null; s = accept()) {
            try {
                sink.accept(s);
            } catch (Error | RuntimeException e) {
                exhausted(e);
                try {
                    s.close();
                } catch (IOException | Error closing) {
                    // nothing more can be done for it: it is counted
                }
                pause();
            }
        }
    }

    private final AtomicBoolean saidExhausted = new AtomicBoolean();

    /** Counts a connection lost to resource exhaustion, and says so once (not once per connection). */
    protected final void exhausted(Throwable e) {
        stats.problem(ServerStats.Problem.EXHAUSTED);
        if (saidExhausted.compareAndSet(false, true)) {
            System.err.println("server: out of resources while serving (" + e + "); each such connection is "
                    + "counted as 'exhausted', and the server goes on");
        }
    }

    /** Serves one connection handed over by a handoff; a second worker holding it is caught, not served. */
    protected final void handleRequest(Connection c) {
        if (!c.claim()) {
            stats.problem(ServerStats.Problem.DUPLICATE);
            return;
        }
        handleRequest(c.socket);
    }

    /**
     * Serves one connection, each phase within a deadline: the request within the request timeout
     * (by the clock), the work t_r (at most Protocol.MAX_DELAY_MS), the 4000-byte reply (it fits
     * in the socket's send buffer, so writing never waits for the client), then the client's close
     * within the request timeout again. Served only if the client did not reset before reading
     * its reply. Never throws: every problem is counted and the connection is closed.
     */
    // ANCHOR: handle
    public final void handleRequest(Socket s) {
        try (s) {
            Protocol.Request request;
            try {
                request = Protocol.read(s, config.requestTimeoutMs());
            } catch (Protocol.BadRequest e) {
                stats.problem(e.problem);
                refuse(s, e.getMessage());
                return;
            }
            long delay = request.delayMs() >= 0 ? request.delayMs() : config.delayMs();
            if (delay > 0) {
                Thread.sleep(delay);  // the paper's simulated work
            }
            OutputStream out = s.getOutputStream();
            out.write(Protocol.reply(request.id()));
            out.flush();
            if (awaitClientClose(s, config.requestTimeoutMs()) && stillThere(s)) {
                stats.served(request.id());
            } else {
                stats.problem(ServerStats.Problem.RESET);  // it closed without reading the reply
            }
        } catch (SocketTimeoutException e) {
            stats.problem(ServerStats.Problem.TIMEOUT);
        } catch (IOException e) {
            stats.problem(ServerStats.Problem.RESET);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();  // a forced shutdown: the connection closes unserved
        } catch (Error | RuntimeException e) {  // out of file descriptors, threads or memory
            exhausted(e);
        }
    }
    // ANCHOR_END: handle

    /**
     * Says why, closes our side, and reads (briefly) what the client still sends: closing a socket
     * with unread input would reset it, and the client would never see the reason.
     */
    private static void refuse(Socket s, String reason) {
        try {
            s.getOutputStream().write(Protocol.error(reason));
            s.shutdownOutput();
            awaitClientClose(s, 100);
        } catch (IOException e) {
            // the client is gone already: nothing more to tell it
        }
    }

    /**
     * Waits, until {@code timeoutMs} have passed by the clock, for the client to close. True when
     * it closed, or kept the connection (or kept talking) past the deadline and is cut off; false
     * when it reset the connection, as a client does that closes before reading what it was sent.
     */
    private static boolean awaitClientClose(Socket s, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        try {
            InputStream in = s.getInputStream();
            byte[] sink = new byte[256];
            for (long left = timeoutMs; left > 0; left = (deadline - System.nanoTime()) / 1_000_000) {
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                if (in.read(sink) < 0) {
                    return true;
                }
            }
            return true;
        } catch (SocketTimeoutException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * False when the client's kernel has already refused data: it closed before its reply came,
     * and TCP answered the reply with a reset. Its close (FIN) reads like a half-close, so the
     * server sends one urgent byte, which a client that reads normally never sees (it is taken
     * out of the stream unless the client asks for it inline), and which fails on a reset socket.
     * On loopback the reset is in before this runs; over a network it may not be, and such a
     * client is then counted as served: only an answer from the client could tell.
     */
    private static boolean stillThere(Socket s) {
        try {
            s.sendUrgentData(0);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Joins {@code t} until the deadline; true when it ended. */
    protected static boolean join(Thread t, long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (left > 0) {
            t.join(Math.max(1, left / 1_000_000));
        }
        return !t.isAlive();
    }
}
