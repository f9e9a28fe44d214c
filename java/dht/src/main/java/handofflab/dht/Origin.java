package handofflab.dht;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The origin side of one process: the paper's non-blocking initiations and HASH_Wait. One TCP
 * connection to every target (itself included, so a local request takes the same path), and one
 * reader thread per connection that completes requests as their replies arrive.
 *
 * <p>Initiations are buffered and go out when the buffer fills or at {@link #await}: L requests
 * initiated before a wait travel together, which is what the blocking factor L buys.
 */
final class Origin implements Closeable {
    private final DhtConfig config;
    private final Link[] links;
    private final AtomicLong nextId = new AtomicLong();

    Origin(DhtConfig config) {
        this.config = config;
        this.links = new Link[config.processes()];
        try {
            for (int t = 0; t < links.length; t++) {
                links[t] = new Link(t);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** HASH_Insert: stores n values (n × width ints of {@code values}) under {@code key} on {@code target}. */
    Request insert(int target, long key, int n, int[] values) {
        return initiate(Op.INSERT, target, key, n, values);
    }

    /** HASH_Find: up to n of key's values, into {@code out}, once awaited. */
    Request find(int target, long key, int n, int[] out) {
        return initiate(Op.FIND, target, key, n, out);
    }

    /** HASH_Delete: removes up to n of key's values and returns them into {@code out}, once awaited. */
    Request delete(int target, long key, int n, int[] out) {
        return initiate(Op.DELETE, target, key, n, out);
    }

    Request barrier() {
        return initiate(Op.BARRIER, 0, 0, 0, new int[0]);
    }

    private Request initiate(Op op, int target, long key, int n, int[] values) {
        if (target < 0 || target >= links.length) {
            throw new IllegalArgumentException("target " + target + " is not a process of this table (0.." + (links.length - 1) + ")");
        }
        if (n < 0 || n > config.maxRequest) {
            throw new IllegalArgumentException("a request of " + n + " values is larger than a target's receive buffer of "
                    + config.maxRequest + " values: split it into requests of at most " + config.maxRequest);
        }
        if (values.length != n * config.width) {
            throw new IllegalArgumentException("a request of " + n + " values of width " + config.width + " needs an array of "
                    + n * config.width + " ints; this one has " + values.length);
        }
        Request r = new Request(nextId.incrementAndGet(), op, target, key, n, values);
        links[target].send(r);
        return r;
    }

    /**
     * HASH_Wait: returns once every request given is complete. A request whose target died or
     * closed its connection has no known outcome: this throws, naming the target and how many.
     */
    void await(Collection<Request> requests) throws InterruptedException {
        for (Link l : links) {
            l.flush();
        }
        String failure = null;
        int failed = 0;
        for (Request r : requests) {
            r.await();
            if (r.failure() != null) {
                failure = failure == null ? r.failure() : failure;
                failed++;
            }
        }
        if (failure != null) {
            throw new DhtException(failed + " of " + requests.size() + " requests have no known outcome: " + failure);
        }
    }

    @Override
    public void close() {
        for (Link l : links) {
            if (l != null) {
                l.close();
            }
        }
    }

    /** A socket and its two streams, once its handshake is done. */
    private static final class Connected {
        final Socket socket;
        final DataOutputStream out;
        final DataInputStream in;

        Connected(Socket socket, DataOutputStream out, DataInputStream in) {
            this.socket = socket;
            this.out = out;
            this.in = in;
        }
    }

    /** The connection to one target and the thread that reads its replies. */
    private final class Link {
        final int target;
        final String name;
        final Socket socket;
        final DataOutputStream out;
        final DataInputStream in;
        final Map<Long, Request> pending = new ConcurrentHashMap<>();
        volatile String broken;     // why the connection ended, once it has

        Link(int target) {
            this.target = target;
            InetSocketAddress a = config.peers.get(target);
            this.name = "target " + target + " (" + a.getHostString() + ":" + a.getPort() + ")";
            Connected c = handshake(a);
            this.socket = c.socket;
            this.out = c.out;
            this.in = c.in;
            Thread t = new Thread(this::readReplies, "dht-replies-" + config.id + "-to-" + target);
            t.setDaemon(true);
            t.start();
        }

        /** A connection to the target once it has answered the handshake. */
        private Connected handshake(InetSocketAddress a) {
            long deadline = System.nanoTime() + (long) (config.connectSeconds * 1e9);
            while (true) {
                Socket s = connect(a, deadline);
                try {
                    s.setTcpNoDelay(true);
                    Connected c = new Connected(s, new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16)),
                            new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16)));
                    Wire.hello(c.out, config, config.id);
                    int id = Wire.readHello(c.in, config, name);
                    if (id != target) {
                        throw new DhtException(name + " says it is process " + id + ": give every process the same --peers, in "
                                + "the same order");
                    }
                    return c;
                } catch (IOException e) {
                    // A proxy in front of the target (Toxiproxy, for a network with latency) accepts at once and
                    // closes when the target is not listening yet: try again until the target is up, or the deadline.
                    closeQuietly(s);
                    if (System.nanoTime() >= deadline) {
                        throw new DhtException(name + " closed the connection during the handshake (" + e.getMessage() + ")", e);
                    }
                    pause();
                }
            }
        }

        private Socket connect(InetSocketAddress a, long deadline) {
            IOException last = null;
            do {
                Socket s = new Socket();
                try {
                    s.connect(new InetSocketAddress(a.getHostString(), a.getPort()), 2000);
                    return s;
                } catch (IOException e) {  // not started yet (refused), or unreachable
                    last = e;
                    try {
                        s.close();
                        Thread.sleep(50);
                    } catch (IOException | InterruptedException ignored) {
                        break;
                    }
                }
            } while (System.nanoTime() < deadline);
            throw new DhtException("cannot reach " + name + " after " + config.connectSeconds + " s ("
                    + (last instanceof ConnectException ? "connection refused" : String.valueOf(last)) + "): start every "
                    + "process of --peers, and check that host and port are right and reachable from process " + config.id, last);
        }

        private void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // it is being given up either way
            }
        }

        private void pause() {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DhtException("interrupted while connecting", e);
            }
        }

        void send(Request r) {
            if (broken != null) {
                throw new DhtException(name + " is gone: " + broken);
            }
            pending.put(r.id, r);
            try {
                synchronized (out) {
                    out.writeByte(r.op.ordinal());
                    out.writeLong(r.id);
                    out.writeLong(r.key);
                    out.writeInt(r.n);
                    if (r.op == Op.INSERT) {
                        Wire.writeInts(out, r.values, r.n * config.width);
                    }
                }
            } catch (IOException e) {
                fail("sending to it failed (" + e.getMessage() + ")");
                throw new DhtException(name + " is gone: " + broken, e);
            }
            if (broken != null) {   // it broke while we added: the reader may have missed this request
                fail(broken);
            }
        }

        void flush() {
            try {
                synchronized (out) {
                    out.flush();
                }
            } catch (IOException e) {
                fail("sending to it failed (" + e.getMessage() + ")");
            }
        }

        private void readReplies() {
            try {
                while (true) {
                    long id = in.readLong();
                    byte status = in.readByte();
                    int processed = in.readInt();
                    if (status == Wire.ERROR) {
                        String why = in.readUTF();
                        fail("it refused a request: " + why);
                        return;
                    }
                    Request r = pending.remove(id);
                    if (r == null) {
                        fail("it answered request " + id + ", which this origin never sent or already saw answered");
                        return;
                    }
                    if (processed < 0 || processed > r.n) {
                        fail("it answered request " + id + " with " + processed + " values processed, of " + r.n);
                        return;
                    }
                    if (r.op.returnsValues()) {
                        Wire.readInts(in, r.values, processed * config.width);
                    }
                    r.complete(processed, status == Wire.FULL);
                }
            } catch (EOFException e) {
                fail("it closed the connection (its process ended or was killed, or a network between cut it)");
            } catch (IOException e) {
                fail("the connection broke (" + e.getMessage() + ")");
            }
        }

        /** Ends the link: every request still pending has no known outcome, and says why. */
        void fail(String why) {
            if (broken == null) {
                broken = why;
            }
            for (Request r : pending.values()) {
                r.fail(name + ": " + broken + "; request " + r + " may or may not have been applied");
                pending.remove(r.id);
            }
        }

        void close() {
            fail("this origin closed it");
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
