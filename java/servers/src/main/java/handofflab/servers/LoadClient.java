package handofflab.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The paper's test client ({@code TCPClient IP port nchildren nrequests [millisec]}, Roussev &amp; Wu
 * 2001, Fig. 1), as {@code ./lab client HOST PORT NCHILDREN NREQUESTS [MILLIS]}: NCHILDREN children
 * (threads here, processes in the paper) each send NREQUESTS requests one after another, one
 * connection per request, asking the server to work MILLIS ms on each. Every request carries a
 * unique id, so the report ({@link LoadReport}) can say which requests were lost or answered twice.
 * {@link ClientMain} is its command line.
 */
public final class LoadClient {
    /** A grader needs one failure, not all of them: each lost request costs its client the reply
     *  timeout, so a hung server would otherwise hold a run for children x requests x timeout. */
    static final boolean STOP_ON_FAILURE = Boolean.getBoolean("handofflab.stop.on.failure");
    static final String UNSENT = "unsent";

    private LoadClient() {
    }

    /** Runs the paper's experiment against host:port; {@code millis} < 0 leaves t_r to the server. */
    public static LoadReport run(String host, int port, int children, int requests, long millis, long timeoutMs,
                                 PrintStream progress) throws InterruptedException {
        return run(host, port, children, requests, millis, timeoutMs, 0, progress);
    }

    /**
     * The same, with {@code silent} connections opened first that connect and send nothing, held open until the
     * last reply: clients that are slow to send, or idle. A worker that takes one waits for its request until the
     * server's request timeout cuts it, so a pool of W workers answers nobody for (silent / W) timeouts. The report
     * counts how many the server cut before the last reply.
     */
    public static LoadReport run(String host, int port, int children, int requests, long millis, long timeoutMs, int silent,
                                 PrintStream progress) throws InterruptedException {
        return run(host, port, children, requests, millis, timeoutMs, silent, 0, progress);
    }

    /**
     * The same, each client idle {@code idleMs} between its connect and its request: a burst of clients that
     * connect at once and send a second later holds every connection in the server (and, past its handoff, in
     * the kernel's listen queue) at the same time. A server whose queue overflows delays them; it must not
     * blame them for it.
     */
    public static LoadReport run(String host, int port, int children, int requests, long millis, long timeoutMs, int silent,
                                 long idleMs, PrintStream progress) throws InterruptedException {
        List<Socket> quiet = new ArrayList<>();
        for (int i = 0; i < silent; i++) {
            Socket s = new Socket();
            quiet.add(s);
            try {
                s.connect(new InetSocketAddress(host, port), (int) timeoutMs);
            } catch (IOException e) {
                closeAll(quiet);
                throw new IllegalArgumentException("silent connection " + (i + 1) + " of " + silent + " to " + host + ":"
                        + port + " failed (" + e.getMessage() + "): is a server running there?");
            }
        }
        try {
            LoadReport r = load(host, port, children, requests, millis, timeoutMs, idleMs, progress);
            int cut = 0;
            for (Socket s : quiet) {  // on loopback a close the server made before its last reply is here by now
                cut += isClosedByPeer(s) ? 1 : 0;
            }
            return new LoadReport(r.host(), r.port(), r.children(), r.requests(), r.millis(), r.elapsedNanos(), r.ok(),
                    r.errors(), r.duplicated(), r.latency(), r.examples(), silent, cut, idleMs);
        } finally {
            closeAll(quiet);
        }
    }

    /** Whether the server closed (or reset) this silent connection: its end of stream is already here. */
    private static boolean isClosedByPeer(Socket s) {
        try {
            s.setSoTimeout(1);
            while (s.getInputStream().read() >= 0) {
                continue;  // an error line before the close
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;  // reset
        }
    }

    private static void closeAll(List<Socket> sockets) {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    private static LoadReport load(String host, int port, int children, int requests, long millis, long timeoutMs,
                                   long idleMs, PrintStream progress) throws InterruptedException {
        long base = ThreadLocalRandom.current().nextLong(1L << 50);  // ids unique across runs against one server
        Load load = new Load(host, port, requests, millis, timeoutMs, idleMs);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> kids = new ArrayList<>();
        for (int c = 0; c < children; c++) {
            long first = base + (long) c * requests;
            kids.add(new Thread(() -> load.child(go, first), "child-" + c));
        }
        kids.forEach(Thread::start);
        long start = System.nanoTime();
        go.countDown();
        load.awaitChildren(kids, start, (long) children * requests, progress);
        long elapsed = System.nanoTime() - start;
        Map<String, Long> counted = new TreeMap<>();
        load.errors.forEach((k, v) -> counted.put(k, v.get()));
        return new LoadReport(host, port, children, requests, millis, elapsed, load.ok.get(), counted,
                load.duplicated.get(), load.latency, load.examples(), 0, 0, idleMs);
    }

    /** One load's requests, as each child sends them, and the tallies the children share. */
    private static final class Load {
        final String host;
        final int port;
        final int requests;  // per child
        final long millis;
        final long timeoutMs;
        final long idleMs;
        final Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
        private final List<String> examples = new ArrayList<>();  // guarded by itself
        final Set<Long> answered = ConcurrentHashMap.newKeySet();
        final AtomicLong ok = new AtomicLong();
        final AtomicLong duplicated = new AtomicLong();
        final AtomicLong done = new AtomicLong();
        final AtomicBoolean failed = new AtomicBoolean();
        final Histogram latency = new Histogram(3_600_000_000L, 3);  // guarded by itself

        Load(String host, int port, int requests, long millis, long timeoutMs, long idleMs) {
            this.host = host;
            this.port = port;
            this.requests = requests;
            this.millis = millis;
            this.timeoutMs = timeoutMs;
            this.idleMs = idleMs;
        }

        /** One child: once {@code go} opens, its requests one after another, ids {@code first} on. */
        void child(CountDownLatch go, long first) {
            Histogram mine = new Histogram(3_600_000_000L, 3);
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            for (int r = 0; r < requests; r++) {
                if (STOP_ON_FAILURE && failed.get()) {
                    errors.computeIfAbsent(UNSENT, k -> new AtomicLong()).addAndGet(requests - r);
                    break;
                }
                long id = first + r, t0 = System.nanoTime();
                String error = request(host, port, id, millis, timeoutMs, idleMs, answered, duplicated);
                if (error == null) {
                    ok.incrementAndGet();
                    mine.recordValue(Math.max(1, (System.nanoTime() - t0) / 1_000));
                } else {
                    recordFailure(id, error);
                }
                done.incrementAndGet();
            }
            synchronized (latency) {
                latency.add(mine);
            }
        }

        private void recordFailure(long id, String error) {
            failed.set(true);
            String kind = error.substring(0, error.indexOf(':'));
            errors.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
            synchronized (examples) {
                if (examples.size() < 3) {
                    examples.add("request " + id + ": " + error);
                }
            }
        }

        List<String> examples() {
            return new ArrayList<>(examples);
        }

        /** Waits for every child, printing how far the load is every two seconds when {@code progress} is not null. */
        void awaitChildren(List<Thread> kids, long start, long total, PrintStream progress) throws InterruptedException {
            long lastReport = start;
            for (Thread k : kids) {
                while (k.isAlive()) {
                    k.join(1000);
                    if (progress != null && System.nanoTime() - lastReport > 2_000_000_000L) {
                        lastReport = System.nanoTime();
                        progress.printf("  ... %d of %d requests done, %d errors%n", done.get(), total,
                                done.get() - ok.get());
                        progress.flush();
                    }
                }
            }
        }
    }

    /** One request on its own connection; null when answered correctly, else "kind: what happened". */
    static String request(String host, int port, long id, long millis, long timeoutMs, long idleMs, Set<Long> answered,
                          AtomicLong duplicated) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), (int) timeoutMs);
            s.setSoTimeout((int) timeoutMs);
            if (idleMs > 0) {
                try {
                    Thread.sleep(idleMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return "io: interrupted while idle";
                }
            }
            s.getOutputStream().write(Protocol.request(id, millis));
            byte[] reply = new byte[Protocol.REPLY_BYTES];
            int n = readFully(s.getInputStream(), reply);
            long got = Protocol.replyId(reply, n);
            if (got < 0) {
                String text = new String(reply, 0, Math.min(n, 80), StandardCharsets.US_ASCII).strip();
                return "short reply: " + n + " of " + Protocol.REPLY_BYTES + " bytes" + (text.startsWith("ERR") ? " (" + text + ")" : "");
            }
            if (!answered.add(got)) {
                duplicated.incrementAndGet();
            }
            return got == id ? null : "wrong id: the reply answers request " + got;
        } catch (ConnectException e) {
            return "refused: " + e.getMessage();
        } catch (SocketTimeoutException e) {
            return "timeout: no reply within " + timeoutMs + " ms";
        } catch (SocketException e) {
            return "reset: " + e.getMessage();
        } catch (IOException e) {
            return "io: " + e;
        }
    }

    private static int readFully(InputStream in, byte[] buf) throws IOException {
        int n = 0;
        while (n < buf.length) {
            int r = in.read(buf, n, buf.length - n);
            if (r < 0) {
                break;
            }
            n += r;
        }
        return n;
    }
}
