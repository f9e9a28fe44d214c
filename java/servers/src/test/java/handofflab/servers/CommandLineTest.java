package handofflab.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** `./lab serve` and `./lab client` refuse bad arguments with a message naming the fix. */
class CommandLineTest {
    static {
        CatalogDesigns.load();
    }

    /** Runs ServerMain.start and returns its error output; the server must not have started. */
    static String serveRefuses(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        TcpServer server = ServerMain.start(args, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true));
        assertNull(server, "started with bad arguments");
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void anUnknownDesignIsNamedWithTheKnownOnes() {
        String err = serveRefuses("FastestServer");
        assertTrue(err.contains("unknown design 'FastestServer'"), err);
        assertTrue(err.contains("ParallelHashTable") && err.contains("Pipes"), err);
    }

    @Test
    void aPortInUseIsNamed() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            String err = serveRefuses("SharedBuffer", "--port", String.valueOf(taken.getLocalPort()));
            assertTrue(err.contains("port " + taken.getLocalPort() + " on 127.0.0.1 is in use"), err);
        }
    }

    @Test
    void workersMustBePositive() {
        assertTrue(serveRefuses("Pipes", "--workers", "0").contains("--workers must be at least 1 (and at most 10000), got 0"));
        assertTrue(serveRefuses("ThreadPool", "--workers", "100000000").contains("at most 10000"));  // not 10^8 threads
        assertTrue(serveRefuses("LockedAccept", "--workers", "-3").contains("--workers must be at least 1"));
        assertTrue(serveRefuses("SharedBuffer", "--workers", "many").contains("--workers needs a whole number"));
    }

    @Test
    void thePhtNeedsAPrimeNumberOfSlots() {
        String err = serveRefuses("ParallelHashTable", "--slots", "100");
        assertTrue(err.contains("ParallelHashTable cannot be built with --slots 100") && err.contains("prime"), err);
    }

    @Test
    void unknownOptionsAndHandoffsForTheWrongDesignAreRefused() {
        assertTrue(serveRefuses("Iterative", "--turbo", "1").contains("unknown option --turbo"));
        assertTrue(serveRefuses("Iterative", "--handoff", "NotifyBuffer").contains("--handoff applies to the pre-threaded designs"));
        assertTrue(serveRefuses("SharedBuffer", "--handoff", "NoSuchBuffer").contains("unknown handoff 'NoSuchBuffer'"));
        assertTrue(serveRefuses().contains("name a design"));
    }

    @Test
    void virtualThreadsSayWhatTheyNeed() throws Exception {
        if (VirtualThreadServer.available()) {
            TcpServer server = ServerMain.start(new String[] {"VirtualThreads"}, new PrintStream(new ByteArrayOutputStream()), System.err);
            assertNotNull(server);
            assertTrue(server.shutdown(10_000));
        } else {
            assertTrue(serveRefuses("VirtualThreads").contains("needs a JDK 21 or newer"));
        }
    }

    static int client(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) throws InterruptedException {
        return ClientMain.run(args, new PrintStream(out, true), new PrintStream(err, true));
    }

    @Test
    void theClientRefusesBadArgumentsWithExitCode2() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        assertEquals(2, client(out, err, "127.0.0.1", "8080", "many", "20"));
        assertTrue(err.toString().contains("NCHILDREN must be a whole number from 1 to 100000, got 'many'"), err.toString());
        assertEquals(2, client(out, err, "127.0.0.1", "8080", "0", "20"));
        assertEquals(2, client(out, err, "127.0.0.1", "8080"));
        assertTrue(err.toString().contains("expected HOST PORT NCHILDREN NREQUESTS [MILLIS]"), err.toString());
        assertEquals(2, client(out, err, "no-such-host.invalid", "8080", "1", "1"));
        assertTrue(err.toString().contains("unknown host"), err.toString());
        assertEquals(2, client(out, err, "127.0.0.1", "8080", "1", "1", "--silent", "-3"));
        assertTrue(err.toString().contains("--silent must be a whole number from 0 to 10000, got '-3'"), err.toString());
    }

    @Test
    void theClientSaysWhenNoServerAnswers() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();  // free once closed: nobody listens there
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        assertEquals(1, client(out, err, "127.0.0.1", String.valueOf(port), "2", "3", "--quiet"));
        String text = out.toString();
        assertTrue(text.contains("lost            6") && text.contains("refused") && text.contains("is a server running?"), text);
        assertEquals(2, client(out, err, "127.0.0.1", String.valueOf(port), "1", "1", "--silent", "2"));
        assertTrue(err.toString().contains("silent connection 1 of 2 to 127.0.0.1:" + port + " failed")
                && err.toString().contains("is a server running there?"), err.toString());
    }
}
