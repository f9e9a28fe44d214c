package handofflab.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every server design on real loopback sockets: the paper's load served exactly once, a
 * 700-client burst, a burst of 1 600 that idle before they send (and the listen queue it fills), malformed
 * traffic counted without stopping service, and a graceful shutdown.
 * Nothing here passes or fails by timing: waits are for events (with generous deadlines that only
 * a hung server reaches).
 */
class ServersTest {
    static final String HOST = "127.0.0.1";

    static {
        CatalogDesigns.load();
    }

    static List<String> designs() {
        return Designs.names();
    }

    static TcpServer start(ServerConfig config) throws IOException {
        assumeTrue(!config.design().equals("VirtualThreads") || VirtualThreadServer.available(),
                "VirtualThreads needs JDK 21+; this JVM is " + Runtime.version() + " (./lab test uses a JDK 21+ when one is installed)");
        TcpServer server = Designs.create(config);
        server.start();
        return server;
    }

    static void assertExactlyOnce(LoadReport r, TcpServer server) throws InterruptedException {
        assertEquals(0, r.lost(), () -> "lost requests:\n" + r.text());
        assertEquals(0, r.duplicated(), () -> "duplicated replies:\n" + r.text());
        assertEquals(r.total(), r.ok(), r::text);
        assertTrue(server.shutdown(30_000), "the server did not drain");
        ServerStats s = server.stats();
        assertEquals(r.total(), s.served(), s.summary());
        assertEquals(0, s.problems(), s.summary());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    @Timeout(120)
    void servesThePapersLoadExactlyOnce(String design) throws Exception {
        TcpServer server = start(ServerConfig.of(design).withDelayMs(1));
        LoadReport r = LoadClient.run(HOST, server.port(), 140, 20, 1, 60_000, null);  // 2800 requests
        assertEquals(2800, r.total());
        assertExactlyOnce(r, server);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    @Timeout(120)
    void serves700ConcurrentClientsExactlyOnce(String design) throws Exception {
        TcpServer server = start(ServerConfig.of(design).withDelayMs(1));
        LoadReport r = LoadClient.run(HOST, server.port(), 700, 2, 1, 60_000, null);
        assertExactlyOnce(r, server);
    }

    /**
     * A limit of every pool, shown rather than hidden: silent clients (connected, sending nothing) hold its workers
     * until the request timeout cuts them, and nobody else is answered meanwhile. Two workers, four silent clients
     * before one request: in a design that hands connections over in order, the request waits behind all four, so
     * the server cuts four before it answers, (silent / workers) timeouts. An order, not a clock: the reply cannot
     * come before a worker is free, and on loopback the cuts the server made first are at the client before it.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ThreadPool", "SharedBuffer"})
    @Timeout(120)
    void silentClientsHoldAPoolUntilTheRequestTimeoutCutsThem(String design) throws Exception {
        ServerConfig c = ServerConfig.of(design).withWorkers(2).withDelayMs(0);
        TcpServer server = start(new ServerConfig(c.design(), c.bind(), c.port(), c.workers(), c.slots(), c.delayMs(),
                1_000, c.backlog(), c.handoff()));
        LoadReport r = LoadClient.run(HOST, server.port(), 1, 1, 0, 60_000, 4, null);
        assertTrue(r.exactlyOnce(), r::text);
        assertEquals(4, r.silentCut(), () -> "the request was answered before the silent clients ahead of it were cut:\n"
                + r.text());
        assertTrue(server.shutdown(30_000), "the server did not drain");
        assertEquals(4, server.stats().count(ServerStats.Problem.TIMEOUT), server.stats().summary());
    }

    /**
     * Issue 50: 1 600 clients that connect at once, idle 1 s, then send a well-formed request. With a listen queue of
     * 1 024, a raw client saw 450-550 of them refused as "timeout: a half-open or stalled client": the queue
     * overflowed and their requests reached the server after its read deadline. With the default queue (4 096)
     * every one is served once, and nobody is blamed for a stall. Seen to fail with a queue of 64 (four designs cut
     * 1-15 clients as stalled); with the kit's client it held at 256 and at 1 024 here.
     */
    // full tier (40 s): 1 600 clients per design, every design; the default tier's 700-client burst keeps the claim
    @Tag("full")
    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    @Timeout(180)
    void aBurstOfClientsThatIdleBeforeTheirRequestIsServedOnceAndNobodyIsBlamed(String design) throws Exception {
        TcpServer server = start(ServerConfig.of(design).withDelayMs(0));
        LoadReport r = LoadClient.run(HOST, server.port(), BURST, 1, 0, 60_000, 0, 1_000, null);
        assertEquals(0, server.stats().count(ServerStats.Problem.TIMEOUT), () -> "clients blamed for a stall: "
                + server.stats().summary() + "\n" + r.text());
        assertExactlyOnce(r, server);
    }

    static final int BURST = 1_600;

    /**
     * The same burst against a listen queue made too small on purpose (16 connections). 50 workers each wait up
     * to 1 s for their idle client's request, the buffer's 101 slots fill, the acceptor waits, and the kernel's
     * queue overflows: it drops handshakes, which the clients' kernels retry. That is the server's overload, and
     * the ledger names it so, and every connection the server accepted is in it. What no ledger of the server can
     * hold: a client whose handshake its own kernel thought complete, while the server's kernel had dropped it
     * (a SYN cookie that fails later). Measured: 586 of 1 600 clients, SyncookiesFailed 586; they waited their
     * whole timeout. Hence the default queue of 4 096, and the test above.
     */
    // full tier (32 s): 1 600 clients against a queue of 16, their handshakes retried by the kernel for seconds
    @Tag("full")
    @Test
    @Timeout(180)
    void aListenQueueThatOverflowsIsNamedInTheLedgerAsTheServersOverload() throws Exception {
        assumeTrue(ServerStats.kernelListenOverflows() >= 0, "Linux's /proc/net/netstat is not readable here");
        TcpServer server = start(ServerConfig.of("SharedBuffer").withDelayMs(0).withBacklog(16));
        LoadReport r = LoadClient.run(HOST, server.port(), BURST, 1, 0, 30_000, 0, 1_000, null);
        assertTrue(server.shutdown(30_000), "the server did not drain");
        ServerStats s = server.stats();
        assertTrue(s.listenOverflows() > 0, () -> "the queue of 16 never overflowed: " + s.summary());
        assertTrue(s.summary().contains("the listen queue overflowed"), s.summary());
        assertEquals(0, r.duplicated(), r::text);
        assertEquals(r.ok(), s.served(), () -> "clients answered, by their own count: " + r.text() + s.summary());
        assertEquals(0, s.unaccounted(), s.summary());
        assertEquals(s.problems(), s.count(ServerStats.Problem.TIMEOUT) + s.count(ServerStats.Problem.RESET),
                () -> "only requests that came late, or clients that gave up waiting: " + s.summary());
    }

    /** Waits until {@code counter} reaches {@code n}; only a server that never counts it hits the deadline. */
    static void awaitCount(LongSupplier counter, long n, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (counter.getAsLong() < n) {
            assertTrue(System.nanoTime() < deadline, "the server never counted " + what);
            Thread.sleep(5);
        }
    }

    /** Sends {@code bytes}, half-closes if asked, and returns what the server answers until it closes. */
    static String exchange(int port, byte[] bytes, boolean halfClose) throws IOException {
        try (Socket s = new Socket(HOST, port)) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(bytes);
            if (halfClose) {
                s.shutdownOutput();
            }
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            for (int b = in.read(); b >= 0; b = in.read()) {
                got.write(b);
            }
            return got.toString(StandardCharsets.US_ASCII);
        }
    }

    static void stillServes(TcpServer server) throws InterruptedException {
        LoadReport r = LoadClient.run(HOST, server.port(), 10, 2, 0, 30_000, null);
        assertTrue(r.exactlyOnce(), () -> "after the malformed traffic:\n" + r.text());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    @Timeout(120)
    void malformedTrafficIsCountedAndServingGoesOn(String design) throws Exception {
        // 2 s for a request to arrive: long enough that a client starved of the CPU on a busy machine still gets its
        // request in (at 300 ms, one of stillServes' 20 requests was refused as a timeout beside two busy loops)
        TcpServer server = start(ServerConfig.of(design).withDelayMs(0).withRequestTimeoutMs(2000).withWorkers(4).withSlots(5));
        ServerStats stats = server.stats();
        int port = server.port();

        String empty = exchange(port, new byte[0], true);
        awaitCount(() -> stats.count(ServerStats.Problem.EMPTY), 1, "an empty connection");
        assertTrue(empty.isEmpty() || empty.startsWith("ERR empty"), empty);
        stillServes(server);

        byte[] huge = new byte[10_000];
        java.util.Arrays.fill(huge, (byte) '7');
        String oversized = exchange(port, huge, false);
        awaitCount(() -> stats.count(ServerStats.Problem.OVERSIZED), 1, "an oversized request");
        assertTrue(oversized.startsWith("ERR request longer than"), oversized);
        stillServes(server);

        String garbage = exchange(port, "GET / HTTP/1.0\r\n".getBytes(StandardCharsets.US_ASCII), false);
        awaitCount(() -> stats.count(ServerStats.Problem.MALFORMED), 1, "a malformed request");
        assertTrue(garbage.startsWith("ERR malformed request"), garbage);
        stillServes(server);

        String halfOpen = exchange(port, "12".getBytes(StandardCharsets.US_ASCII), false);  // and then nothing
        awaitCount(() -> stats.count(ServerStats.Problem.TIMEOUT), 1, "a half-open connection");
        assertTrue(halfOpen.startsWith("ERR no complete request within 2000 ms"), halfOpen);
        stillServes(server);

        try (Socket s = new Socket(HOST, port)) {  // asks for 300 ms of work, then resets the connection
            s.getOutputStream().write(Protocol.request(99, 300));
            s.setSoLinger(true, 0);
        }
        awaitCount(() -> stats.count(ServerStats.Problem.RESET), 1, "a client that reset mid-reply");
        stillServes(server);

        assertTrue(server.shutdown(30_000));
        assertEquals(5, stats.problems(), stats.summary());
        assertEquals(5 * 20, stats.served(), stats.summary());  // five rounds of 10 clients x 2 requests
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    @Timeout(120)
    void shutdownServesWhatWasAcceptedAndFreesThePort(String design) throws Exception {
        TcpServer server = start(ServerConfig.of(design).withDelayMs(500).withWorkers(10).withSlots(11));
        int port = server.port();
        AtomicReference<LoadReport> report = new AtomicReference<>();
        Thread clients = new Thread(() -> {
            try {
                report.set(LoadClient.run(HOST, port, 10, 1, -1, 30_000, null));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        clients.start();
        // In flight: every connection accepted (the iterative server accepts one at a time).
        awaitCount(server.stats()::accepted, design.equals("Iterative") ? 1 : 10, "the clients' connections");
        assertTrue(server.shutdown(30_000), "the server did not drain");
        clients.join();
        ServerStats s = server.stats();
        // A client whose connect reached the kernel only after the design's threads stopped taking connections is
        // refused by the shutdown's sweep, and counted so (CI saw one, with the machine busy): everything else served.
        long refused = s.count(ServerStats.Problem.REFUSED_AT_SHUTDOWN);
        assertEquals(s.accepted(), s.served() + refused, "every accepted request is served or refused: " + s.summary());
        assertEquals(s.problems(), refused, "no other problem: " + s.summary());
        assertEquals(s.served(), report.get().ok(), report.get().text());
        try (ServerSocket again = new ServerSocket()) {  // the port is free for the next server
            again.setReuseAddress(true);
            again.bind(new InetSocketAddress(HOST, port));
        }
    }

    /**
     * Issue 50: at SIGTERM a LockedAccept server served 51 clients, reset 90 that had connected and sent
     * a request (they waited in the kernel's accept queue), and reported "stopped cleanly: accepted 51,
     * served 51". Now every connection a client made is in the ledger, served or refused by the server,
     * and each client's own outcome agrees with it. One worker, 400 ms per request, 12 clients at once:
     * the designs whose one thread accepts only when free cannot take them all within half the grace, so
     * some are refused; a handoff with room (or none to fill) takes them all and serves them; the designs
     * with a thread per client serve them all. Only counts are asserted, never timings.
     */
    // full tier (37 s): every design shut down with 12 clients queued at 400 ms a request; the default tier's
    // shutdownServesWhatWasAcceptedAndFreesThePort shuts every design down too
    @Tag("full")
    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    @Timeout(120)
    void shutdownServesOrRefusesEveryQueuedConnectionAndTheLedgerSaysWhich(String design) throws Exception {
        TcpServer server = start(ServerConfig.of(design).withDelayMs(400).withWorkers(1).withSlots(2));
        int clients = 12;
        CountDownLatch sent = new CountDownLatch(clients);
        AtomicInteger served = new AtomicInteger(), refused = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            long id = 1_000 + i;
            Thread t = new Thread(() -> {
                try (Socket s = new Socket(HOST, server.port())) {
                    s.setSoTimeout(60_000);
                    s.getOutputStream().write(Protocol.request(id, -1));
                    sent.countDown();
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    InputStream in = s.getInputStream();
                    int b;
                    while (got.size() < Protocol.REPLY_BYTES && (b = in.read()) >= 0) {
                        got.write(b);  // the whole reply, then close, as a client does; a refused one ends early
                    }
                    (Protocol.replyId(got.toByteArray(), got.size()) == id ? served : refused).incrementAndGet();
                } catch (IOException e) {  // reset: refused
                    refused.incrementAndGet();
                }
            });
            threads.add(t);
            t.start();
        }
        sent.await();  // every client connected (the kernel completed it) and sent its request
        awaitCount(server.stats()::accepted, 1, "the first connection");
        // A design with an unbounded queue (TwoLockQueue, ThreadPool) takes all 12 at once, and its one worker then
        // serves them one after another, 4.8 s of a 6 s grace: beside other work one was still being served at 6 s.
        // So the grace adds the 4.8 s, and what fails is a server that does not drain, not a busy machine's slower
        // twelve; the one-thread designs keep 6 s, whose half (3 s to accept) their refusals below are counted in.
        boolean oneThread = design.equals("Iterative") || design.equals("LockedAccept");
        boolean drained = server.shutdown(oneThread ? 6_000 : 6_000 + clients * 400L);
        assertTrue(drained, () -> "the server did not drain what it accepted: " + server.stats().summary()
                + (server instanceof PreThreadedServer ? "; " + ((PreThreadedServer) server).lostReport() : ""));
        for (Thread t : threads) {
            t.join();
        }
        ServerStats st = server.stats();
        long refusedByServer = st.count(ServerStats.Problem.REFUSED_AT_SHUTDOWN);
        assertEquals(clients, st.accepted(), "every connection a client made is in the ledger: " + st.summary());
        assertEquals(clients, st.served() + refusedByServer, st.summary());
        assertEquals(served.get(), st.served(), "clients served, by their own count: " + st.summary());
        assertEquals(refused.get(), refusedByServer, "clients refused, by their own count: " + st.summary());
        assertEquals(0, st.count(ServerStats.Problem.TIMEOUT), "no client blamed for the server's queue: " + st.summary());
        if (Designs.of(design).threads().equals("per-connection")) {
            assertEquals(clients, st.served(), st.summary());
        } else if (oneThread) {
            // they accept only when their one thread is free: in half the grace (3 s) at most 9 of 12, however
            // fast the machine (the work is a sleep); a slower one accepts fewer
            assertTrue(refusedByServer >= 3, "one thread at 400 ms a request accepts at most 9 in 3 s: " + st.summary());
        }
    }

    /** Loses every connection (put drops it); its workers wait in take, as a monitor's do. */
    public static final class LosesAndWaits implements handofflab.handoffs.Handoff<Connection> {
        @Override
        public void put(Connection item) {
        }

        @Override
        public synchronized Connection take() throws InterruptedException {
            while (true) {
                wait();
            }
        }
    }

    /** Loses every connection too; its workers spin in take, running, as a spinning handoff's do. */
    public static final class LosesAndSpins implements handofflab.handoffs.Handoff<Connection> {
        @Override
        public void put(Connection item) {
        }

        @Override
        public Connection take() throws InterruptedException {
            while (!Thread.interrupted()) {
                Thread.onSpinWait();
            }
            throw new InterruptedException();
        }
    }

    // The grader fails a server that did not drain on a quiet machine, and on a busy one only if the loss is proven
    // (ServerBench's "undrained:"): a handoff whose workers all wait while a connection stays untaken lost it; one
    // whose workers still run when the grace ends may only have been starved of a core (a spinning sample was, in a
    // full-tier run beside 1.7 cores of other work).
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"LosesAndWaits", "LosesAndSpins"})
    @Timeout(60)
    void aLostConnectionIsProvenOnlyWhileEveryWorkerWaits(String handoff) throws Exception {
        TcpServer server = start(ServerConfig.of("SharedBuffer").withDelayMs(0).withWorkers(2).withSlots(4)
                .withHandoff(ServersTest.class.getName() + "$" + handoff));
        try (Socket s = new Socket(HOST, server.port())) {
            s.getOutputStream().write(Protocol.request(7, -1));
            awaitCount(server.stats()::accepted, 1, "the connection");
            assertTrue(!server.shutdown(1_000), "a handoff that drops every connection drained");
        }
        PreThreadedServer pre = (PreThreadedServer) server;
        boolean waits = handoff.equals("LosesAndWaits");
        assertEquals(waits, pre.lossProven(), pre.lostReport());
        assertTrue(pre.lostReport().contains(waits ? "the handoff lost them" : "still queued"), pre.lostReport());
    }

    // A client that gave up on a reply leaves its connection in the listen queue when the acceptor was starved (a
    // spinning handoff beside a full test run: 16 replies given up, 16 connections refused at shutdown, drained):
    // on the client's clock alone, so "late"; the same run with a connection the server lost is not.
    @Test
    void connectionsRefusedAtShutdownAfterTheirClientsGaveUpAreLate() {
        ServerStats st = new ServerStats();
        for (int i = 0; i < 100; i++) {
            st.countAccepted();
            st.served(i);
        }
        for (int i = 0; i < 16; i++) {
            st.countAccepted();
            st.problem(ServerStats.Problem.REFUSED_AT_SHUTDOWN);
        }
        LoadReport gaveUp = report(100, java.util.Map.of("timeout", 16L));
        assertTrue(ServerBench.late(gaveUp, st, true), ServerBench.kinds(gaveUp, st));
        assertTrue(!ServerBench.late(gaveUp, st, false), "a server that did not drain may have lost one");
        LoadReport reset = report(100, java.util.Map.of("reset", 16L));
        assertTrue(!ServerBench.late(reset, st, true), "a reset is no time-out: " + ServerBench.kinds(reset, st));
        st.countAccepted();  // accepted and never served nor ended: lost
        assertTrue(!ServerBench.late(gaveUp, st, true), ServerBench.kinds(gaveUp, st));
        assertTrue(ServerBench.kinds(gaveUp, st).contains("refused_at_shutdown 16")
                && ServerBench.kinds(gaveUp, st).contains("unaccounted 1"), ServerBench.kinds(gaveUp, st));
    }

    private static LoadReport report(long ok, java.util.Map<String, Long> errors) {
        long failed = errors.values().stream().mapToLong(Long::longValue).sum();
        return new LoadReport(HOST, 0, 1, (int) (ok + failed), 0, 1, ok, errors, 0,
                new org.HdrHistogram.Histogram(3), List.of(), 0, 0, 0);
    }
}
