package handofflab.servers;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The wire protocol of the paper's experiment (Roussev &amp; Wu 2001, Sec. 2), plus a
 * request id so that exactly-once can be checked end to end.
 *
 * <pre>
 *   request:  "&lt;id&gt; [&lt;millis&gt;]\n"   (ASCII; at most 64 bytes; millis = the simulated work t_r,
 *                                     the paper's client argument; absent: the server's --delay-ms)
 *   reply:    "OK &lt;id&gt;\n" padded with '.' to exactly 4000 bytes, the last one '\n'
 *   error:    "ERR &lt;reason&gt;\n", then the server closes the connection
 * </pre>
 *
 * <p>The client closes first, after reading the reply, so TIME_WAIT lands on the client, as in the
 * paper.
 */
public final class Protocol {
    public static final int REPLY_BYTES = 4000;
    public static final int MAX_REQUEST_BYTES = 64;
    public static final long MAX_DELAY_MS = 60_000;

    private Protocol() {
    }

    /** One parsed request; {@code delayMs} is -1 when the client left t_r to the server. */
    public record Request(long id, long delayMs) {
    }

    /** A request the server refuses, with the kind it is counted as. */
    public static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;
        public final ServerStats.Problem problem;

        BadRequest(ServerStats.Problem problem, String message) {
            super(message);
            this.problem = problem;
        }
    }

    public static byte[] request(long id, long delayMs) {
        String line = delayMs >= 0 ? id + " " + delayMs + "\n" : id + "\n";
        return line.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Reads one request line (ending in '\n' or at the client's half-close), within {@code timeoutMs}
     * in all, by the clock: each read may wait only for what is left of it, so a drip-feeding client
     * is cut off at the deadline, not one read later.
     */
    public static Request read(Socket s, long timeoutMs) throws IOException, BadRequest {
        InputStream in = s.getInputStream();
        byte[] line = new byte[MAX_REQUEST_BYTES];
        int n = 0;
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (true) {
            int b;
            long left = (deadline - System.nanoTime()) / 1_000_000;
            try {
                if (left <= 0) {
                    throw new SocketTimeoutException();
                }
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                b = in.read();
            } catch (SocketTimeoutException e) {
                b = -2;
            }
            if (b == -2) {
                throw new BadRequest(ServerStats.Problem.TIMEOUT, "no complete request within " + timeoutMs + " ms");
            }
            if (b == -1 || b == '\n') {
                break;
            }
            if (n == MAX_REQUEST_BYTES) {
                throw new BadRequest(ServerStats.Problem.OVERSIZED, "request longer than " + MAX_REQUEST_BYTES + " bytes");
            }
            line[n++] = (byte) b;
        }
        if (n == 0) {
            throw new BadRequest(ServerStats.Problem.EMPTY, "empty request");
        }
        return parse(new String(Arrays.copyOf(line, n), StandardCharsets.US_ASCII).strip());
    }

    /**
     * Loads every class the serving path needs, at start: a server that runs out of file
     * descriptors before its first request could not open its own jar to load them later, and a
     * class that fails to load stays failed for the life of the JVM.
     */
    static void preload() {
        try {
            parse("0 0");
            parse("x");
        } catch (BadRequest expected) {
            // the class of a refusal is loaded too
        }
        reply(0);
        error("preload");
        new SocketTimeoutException().getMessage();
    }

    static Request parse(String line) throws BadRequest {
        String[] parts = line.split(" ");
        try {
            if (parts.length < 1 || parts.length > 2) {
                throw new NumberFormatException();
            }
            long id = Long.parseLong(parts[0]);
            long delay = parts.length == 2 ? Long.parseLong(parts[1]) : -1;
            if (id < 0 || (parts.length == 2 && (delay < 0 || delay > MAX_DELAY_MS))) {
                throw new NumberFormatException();
            }
            return new Request(id, delay);
        } catch (NumberFormatException e) {
            throw new BadRequest(ServerStats.Problem.MALFORMED,
                    "malformed request: expected '<id> [<millis>]' with id >= 0 and 0 <= millis <= " + MAX_DELAY_MS);
        }
    }

    public static byte[] reply(long id) {
        byte[] reply = new byte[REPLY_BYTES];
        Arrays.fill(reply, (byte) '.');
        byte[] head = ("OK " + id + "\n").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, reply, 0, head.length);
        reply[REPLY_BYTES - 1] = '\n';
        return reply;
    }

    public static byte[] error(String reason) {
        return ("ERR " + reason + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** The id a reply answers, or -1 when it is not a well-formed reply. */
    public static long replyId(byte[] reply, int length) {
        if (length != REPLY_BYTES || reply[REPLY_BYTES - 1] != '\n') {
            return -1;
        }
        String text = new String(reply, 0, Math.min(length, 32), StandardCharsets.US_ASCII);
        int nl = text.indexOf('\n');
        if (!text.startsWith("OK ") || nl < 0) {
            return -1;
        }
        try {
            return Long.parseLong(text.substring(3, nl));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
