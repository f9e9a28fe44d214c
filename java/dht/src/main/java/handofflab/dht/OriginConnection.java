package handofflab.dht;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One origin's connection to a {@link Target}: its header handler ({@link #readLoop}) reads each request's header,
 * takes a receive buffer and reads the values into it, then hands the request to the target's service thread; its
 * reply writer ({@link #writeLoop}) writes the replies as they come.
 */
final class OriginConnection {
    final Socket socket;
    final DataInputStream in;
    final DataOutputStream out;
    private final Target target;
    private final DhtConfig config;
    private final BlockingQueue<Runnable> replies = new LinkedBlockingQueue<>();  // each writes one reply to `out`
    private volatile boolean writerEnded;   // once true, nothing takes from `replies` any more: whoever adds, runs
    private volatile String origin = "an origin not yet identified";
    volatile int originId = -1;
    final AtomicLong writingNanos = new AtomicLong();  // its writer's time writing

    OriginConnection(Target target, DhtConfig config, Socket socket) throws IOException {
        this.target = target;
        this.config = config;
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
    }

    /** The header handler: the origin's hello, then its requests until it closes. */
    void readLoop() {
        try {
            int from = Wire.readHello(in, config, "the process connecting to process " + config.id);
            origin = "origin " + from;
            originId = from;
            synchronized (out) {
                Wire.hello(out, config, config.id);
            }
            while (!target.isClosed() && readRequest()) {
                // one request a turn
            }
        } catch (IOException | DhtException e) {
            if (!target.isClosed() && !(e instanceof EOFException)) {
                System.err.println("dht target " + config.id + ": " + origin + ": " + e.getMessage());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            replies.add(() -> { });   // wake the writer so it sees the end
            if (originId >= 0) {
                target.originEnded(this);
            }
        }
    }

    /** Reads one request and hands it on; false when this connection reads no more (a request refused). */
    private boolean readRequest() throws IOException, InterruptedException {
        int code = in.readUnsignedByte();
        long id = in.readLong(), key = in.readLong();
        int n = in.readInt();
        if (code >= Op.values().length || n < 0 || n > config.maxRequest) {
            // the kit's origin never sends this; another program might: refuse it and stop reading
            reply(() -> error(id, code >= Op.values().length ? "an unknown operation " + code
                    : "a request of " + n + " values; this target's buffers hold " + config.maxRequest));
            return false;
        }
        Op op = Op.values()[code];
        if (config.rawPut && (op == Op.INSERT || op == Op.FIND)) {
            return target.raw.serve(this, op, id, key, n);
        }
        int[] buffer = op == Op.BARRIER ? null : target.takeBuffer();  // a held barrier must not hold a buffer
        if (op != Op.BARRIER && buffer == null) {
            reply(() -> error(id, target.brokenReason()));
            return false;
        }
        if (op == Op.INSERT) {
            Wire.readInts(in, buffer, n * config.width);
        }
        target.receive(new Incoming(this, op, id, key, n, buffer));
        return true;
    }

    /** Writes replies as they come, flushing when none is waiting: many replies share a packet under load. */
    void writeLoop() {
        try {
            while (!target.isClosed()) {
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
                socket.close();   // so that every reply still to come fails at once (see Target.send)
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
                throw new UncheckedIOException(e);
            }
        });
    }

    void error(long id, String message) throws IOException {
        out.writeLong(id);
        out.writeByte(Wire.ERROR);
        out.writeInt(0);
        out.writeUTF(message);
    }

    /** One reply's writes to {@link #out}. */
    @FunctionalInterface
    interface IoWrite {
        void run() throws IOException;
    }
}
