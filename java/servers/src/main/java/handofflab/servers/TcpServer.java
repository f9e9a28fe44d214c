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

    protected TcpServer(ServerConfig config) throws IOException {
        config.validate();
        this.config = config;
        listener = new ServerSocket();
        listener.setReuseAddress(true);
        try {
            listener.bind(new InetSocketAddress(InetAddress.getByName(config.bind()), config.port()), config.backlog());
        } catch (BindException e) {
            listener.close();
            throw new BindException("port " + config.port() + " on " + config.bind() + " is in use (" + e.getMessage()
                    + "): stop the other server, or pick another port with --port (0: any free port)");
        }
    }

    /** Starts the design's threads; returns at once. */
    public abstract void start();

    /**
     * Waits (until {@code deadlineNanos}) for the design's threads to serve what was accepted and
     * exit; the listener is already closed. Returns false when something was left unserved.
     */
    protected abstract boolean drain(long deadlineNanos) throws InterruptedException;

    /** Stops accepting and serves what was accepted, within {@code graceMs}. False: it could not. */
    public final boolean shutdown(long graceMs) throws InterruptedException {
        stopping = true;
        try {
            listener.close();
        } catch (IOException e) {
            // closing a listener only fails when it is already closed
        }
        return drain(System.nanoTime() + graceMs * 1_000_000);
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
                stats.countAccepted();
                return s;
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

    /** The accept loop for a sink that never waits (it serves, starts or queues at once). */
    protected final void acceptEachAtOnce(Consumer<Socket> sink) {
        for (Socket s = accept(); s != null; s = accept()) {
            sink.accept(s);
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
     * Serves one connection: read the request, do the simulated work t_r, write the 4000-byte
     * reply, then wait for the client to close first. Never throws: every problem is counted and
     * the connection is closed.
     */
    // ANCHOR: handle
    public final void handleRequest(Socket s) {
        try (s) {
            s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, config.requestTimeoutMs()));
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            Protocol.Request request;
            try {
                request = Protocol.read(in, config.requestTimeoutMs());
            } catch (Protocol.BadRequest e) {
                stats.problem(e.problem);
                refuse(s, e.getMessage());
                return;
            }
            long delay = request.delayMs() >= 0 ? request.delayMs() : config.delayMs();
            if (delay > 0) {
                Thread.sleep(delay);  // the paper's simulated work
            }
            out.write(Protocol.reply(request.id()));
            out.flush();
            stats.served(request.id());
            awaitClientClose(in);
        } catch (SocketTimeoutException e) {
            stats.problem(ServerStats.Problem.TIMEOUT);
        } catch (IOException e) {
            stats.problem(ServerStats.Problem.RESET);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();  // a forced shutdown: the connection closes unserved
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
            s.setSoTimeout(100);
            awaitClientClose(s.getInputStream());
        } catch (IOException e) {
            // the client is gone already: nothing more to tell it
        }
    }

    private static void awaitClientClose(InputStream in) {
        try {
            byte[] sink = new byte[256];
            long budget = 1 << 16;  // a client that keeps talking is cut off
            for (int n = in.read(sink); n >= 0 && budget > 0; n = in.read(sink)) {
                budget -= n;
            }
        } catch (IOException e) {
            // reset or timeout after the reply: the request was served; nothing to count
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
