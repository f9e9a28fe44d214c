package handofflab.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The paper's test client ({@code TCPClient IP port nchildren nrequests [millisec]}, Roussev &amp; Wu
 * 2001, Fig. 1), as {@code ./lab client HOST PORT NCHILDREN NREQUESTS [MILLIS]}: NCHILDREN children
 * (threads here, processes in the paper) each send NREQUESTS requests one after another, one
 * connection per request, asking the server to work MILLIS ms on each. Every request carries a
 * unique id, so the report can say which requests were lost or answered twice.
 *
 * <p>Exit codes: 0 every request answered once; 1 some were not; 2 bad arguments.
 */
public final class LoadClient {
    /** A grader needs one failure, not all of them: each lost request costs its client the reply
     *  timeout, so a hung server would otherwise hold a run for children x requests x timeout. */
    static final boolean STOP_ON_FAILURE = Boolean.getBoolean("handofflab.stop.on.failure");
    static final String UNSENT = "unsent";

    static final String USAGE = "usage: ./lab client HOST PORT NCHILDREN NREQUESTS [MILLIS] [--timeout-ms N] [--silent N] "
            + "[--idle-ms N] [--json FILE] [--quiet]";

    /** What one run measured. Latencies are in microseconds, successful requests only. */
    public record Report(String host, int port, int children, int requests, long millis, long elapsedNanos, long ok,
                         Map<String, Long> errors, long duplicated, Histogram latency, List<String> examples,
                         int silent, int silentCut, long idleMs) {

        public long total() {
            return (long) children * requests;
        }

        /** Requests that got no correct reply: refused, reset, timed out, cut short or answered wrongly. */
        public long lost() {
            return total() - ok - unsent();
        }

        /** Requests never sent: the run stopped at its first failure ({@link #STOP_ON_FAILURE}). */
        public long unsent() {
            return errors.getOrDefault(UNSENT, 0L);
        }

        public boolean exactlyOnce() {
            return ok == total() && duplicated == 0;
        }

        public double seconds() {
            return elapsedNanos / 1e9;
        }

        public String text() {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format("%d children x %d requests = %d requests to %s:%d, t_r = %s%s%n", children, requests,
                    total(), host, port, millis >= 0 ? millis + " ms" : "the server's default",
                    idleMs > 0 ? ", each client idle " + idleMs + " ms between its connect and its request" : ""));
            sb.append(String.format("total time      %.3f s%n", seconds()));
            sb.append(String.format("throughput      %.1f requests/s%n", ok / Math.max(1e-9, seconds())));
            if (latency.getTotalCount() > 0) {
                sb.append(String.format("latency (ms)    p50 %.2f   p90 %.2f   p99 %.2f   max %.2f%n",
                        latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(90) / 1e3,
                        latency.getValueAtPercentile(99) / 1e3, latency.getMaxValue() / 1e3));
            }
            sb.append(String.format("answered once   %d of %d%n", ok, total()));
            sb.append(String.format("lost            %d%s%n", lost(), lost() > 0 ? "   <- requests with no correct reply" : ""));
            sb.append(String.format("duplicated      %d%s%n", duplicated, duplicated > 0 ? "   <- ids answered more than once" : ""));
            errors.forEach((kind, n) -> sb.append(String.format("  error: %-14s %d%n", kind, n)));
            if (silent > 0) {
                sb.append(String.format("silent          %d connections sent nothing; the server cut %d of them before the"
                        + " last reply%n", silent, silentCut));
            }
            for (String e : examples) {
                sb.append("  e.g. ").append(e).append('\n');
            }
            return sb.toString();
        }

        public String json() {
            StringBuilder sb = new StringBuilder("{");
            sb.append(String.format("\"host\": \"%s\", \"port\": %d, \"children\": %d, \"requests\": %d, \"millis\": %d, ",
                    host, port, children, requests, millis));
            sb.append(String.format("\"total\": %d, \"ok\": %d, \"lost\": %d, \"duplicated\": %d, \"seconds\": %.6f, ",
                    total(), ok, lost(), duplicated, seconds()));
            sb.append(String.format("\"throughput\": %.3f, ", ok / Math.max(1e-9, seconds())));
            for (int p : new int[] {50, 90, 99}) {
                sb.append(String.format("\"p%d_ms\": %.3f, ", p, latency.getValueAtPercentile(p) / 1e3));
            }
            sb.append(String.format("\"silent\": %d, \"silent_cut\": %d, \"idle_ms\": %d, ", silent, silentCut, idleMs));
            sb.append(String.format("\"max_ms\": %.3f, \"errors\": {", latency.getMaxValue() / 1e3));
            int i = 0;
            for (Map.Entry<String, Long> e : errors.entrySet()) {
                sb.append(i++ > 0 ? ", " : "").append('"').append(e.getKey()).append("\": ").append(e.getValue());
            }
            return sb.append("}}").toString();
        }
    }

    private LoadClient() {
    }

    /** Runs the paper's experiment against host:port; {@code millis} < 0 leaves t_r to the server. */
    public static Report run(String host, int port, int children, int requests, long millis, long timeoutMs,
                             PrintStream progress) throws InterruptedException {
        return run(host, port, children, requests, millis, timeoutMs, 0, progress);
    }

    /**
     * The same, with {@code silent} connections opened first that connect and send nothing, held open until the
     * last reply: clients that are slow to send, or idle. A worker that takes one waits for its request until the
     * server's request timeout cuts it, so a pool of W workers answers nobody for (silent / W) timeouts. The report
     * counts how many the server cut before the last reply.
     */
    public static Report run(String host, int port, int children, int requests, long millis, long timeoutMs, int silent,
                             PrintStream progress) throws InterruptedException {
        return run(host, port, children, requests, millis, timeoutMs, silent, 0, progress);
    }

    /**
     * The same, each client idle {@code idleMs} between its connect and its request: a burst of clients that
     * connect at once and send a second later holds every connection in the server (and, past its handoff, in
     * the kernel's listen queue) at the same time. A server whose queue overflows delays them; it must not
     * blame them for it.
     */
    public static Report run(String host, int port, int children, int requests, long millis, long timeoutMs, int silent,
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
            Report r = load(host, port, children, requests, millis, timeoutMs, idleMs, progress);
            int cut = 0;
            for (Socket s : quiet) {  // on loopback a close the server made before its last reply is here by now
                cut += isClosedByPeer(s) ? 1 : 0;
            }
            return new Report(r.host, r.port, r.children, r.requests, r.millis, r.elapsedNanos, r.ok, r.errors, r.duplicated,
                    r.latency, r.examples, silent, cut, idleMs);
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

    private static Report load(String host, int port, int children, int requests, long millis, long timeoutMs,
                               long idleMs, PrintStream progress) throws InterruptedException {
        long base = ThreadLocalRandom.current().nextLong(1L << 50);  // ids unique across runs against one server
        Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
        List<String> examples = new ArrayList<>();  // guarded by itself
        Set<Long> answered = ConcurrentHashMap.newKeySet();
        AtomicLong ok = new AtomicLong(), duplicated = new AtomicLong(), done = new AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
        Histogram latency = new Histogram(3_600_000_000L, 3);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> kids = new ArrayList<>();
        for (int c = 0; c < children; c++) {
            long first = base + (long) c * requests;
            kids.add(new Thread(() -> {
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
                        failed.set(true);
                        String kind = error.substring(0, error.indexOf(':'));
                        errors.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
                        synchronized (examples) {
                            if (examples.size() < 3) {
                                examples.add("request " + id + ": " + error);
                            }
                        }
                    }
                    done.incrementAndGet();
                }
                synchronized (latency) {
                    latency.add(mine);
                }
            }, "child-" + c));
        }
        kids.forEach(Thread::start);
        long start = System.nanoTime(), lastReport = start;
        go.countDown();
        for (Thread k : kids) {
            while (k.isAlive()) {
                k.join(1000);
                if (progress != null && System.nanoTime() - lastReport > 2_000_000_000L) {
                    lastReport = System.nanoTime();
                    progress.printf("  ... %d of %d requests done, %d errors%n", done.get(), (long) children * requests,
                            done.get() - ok.get());
                    progress.flush();
                }
            }
        }
        long elapsed = System.nanoTime() - start;
        Map<String, Long> counted = new TreeMap<>();
        errors.forEach((k, v) -> counted.put(k, v.get()));
        return new Report(host, port, children, requests, millis, elapsed, ok.get(), counted, duplicated.get(),
                latency, new ArrayList<>(examples), 0, 0, idleMs);
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

    public static void main(String[] args) throws InterruptedException {
        System.exit(run(args, System.out, System.err));
    }

    /** The command line: parses, runs, prints; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) throws InterruptedException {
        List<String> positional = new ArrayList<>();
        long timeoutMs = 60_000;
        int silent = 0;
        long idleMs = 0;
        String json = null;
        boolean quiet = false;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--timeout-ms":
                        timeoutMs = within("--timeout-ms", value(args, ++i, "--timeout-ms"), 1, 3_600_000);
                        break;
                    case "--silent":
                        silent = (int) within("--silent", value(args, ++i, "--silent"), 0, 10_000);
                        break;
                    case "--idle-ms":
                        idleMs = within("--idle-ms", value(args, ++i, "--idle-ms"), 0, 600_000);
                        break;
                    case "--json":
                        json = value(args, ++i, "--json");
                        break;
                    case "--quiet":
                        quiet = true;
                        break;
                    default:
                        if (args[i].startsWith("--")) {
                            throw new IllegalArgumentException("unknown option " + args[i]);
                        }
                        positional.add(args[i]);
                }
            }
            if (positional.size() < 4 || positional.size() > 5) {
                throw new IllegalArgumentException("expected HOST PORT NCHILDREN NREQUESTS [MILLIS], got " + positional.size() + " argument(s)");
            }
            String host = positional.get(0);
            // Every number in its range before any work: nothing is truncated to fit an int.
            int port = (int) within("PORT", positional.get(1), 1, 65535);
            int children = (int) within("NCHILDREN", positional.get(2), 1, 100_000);
            int requests = (int) within("NREQUESTS", positional.get(3), 1, 10_000_000);
            long millis = positional.size() == 5 ? within("MILLIS", positional.get(4), 0, Protocol.MAX_DELAY_MS) : -1;
            if (json != null) {
                writable(Path.of(json));  // before the load, not after it
            }
            try {
                java.net.InetAddress.getByName(host);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("unknown host '" + host + "'");
            }
            Report report = run(host, port, children, requests, millis, timeoutMs, silent, idleMs, quiet ? null : out);
            out.print(report.text());
            if (report.errors().containsKey("refused") && report.ok() == 0) {
                out.println("nothing answered at " + host + ":" + port + ": is a server running? start one with `./lab serve DESIGN --port " + port + "`");
            }
            if (json != null) {
                try {
                    Files.writeString(Path.of(json), report.json() + "\n");
                } catch (IOException e) {
                    err.println("client: cannot write " + json + ": " + e.getMessage());
                    return 2;
                }
            }
            return report.exactlyOnce() ? 0 : 1;
        } catch (IllegalArgumentException e) {
            err.println("client: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /** A whole number from {@code low} to {@code high}, or an error naming the argument and its range. */
    static long within(String name, String value, long low, long high) {
        long v;
        try {
            v = Long.parseLong(value);
        } catch (NumberFormatException e) {
            v = low - 1;  // not a number, or past a long: out of range either way
        }
        if (v < low || v > high) {
            throw new IllegalArgumentException(name + " must be a whole number from " + low + " to " + high + ", got '"
                    + value + "'");
        }
        return v;
    }

    /** Refuses, before any work, a --json file that cannot be written. */
    private static void writable(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir) || Files.isDirectory(file)
                || (Files.exists(file) && !Files.isWritable(file))) {
            throw new IllegalArgumentException("cannot write --json " + file + ": its folder must exist and be writable");
        }
    }
}
