package handofflab.servers;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./lab client HOST PORT NCHILDREN NREQUESTS [MILLIS] [--timeout-ms N] [--silent N] [--idle-ms N]
 * [--json FILE] [--quiet]}: the load client's command line. Every argument is checked before any work, then
 * {@link LoadClient} runs the load and its report is printed.
 *
 * <p>Exit codes: 0 every request answered once; 1 some were not; 2 bad arguments.
 */
public final class ClientMain {
    static final String USAGE = "usage: ./lab client HOST PORT NCHILDREN NREQUESTS [MILLIS] [--timeout-ms N] [--silent N] "
            + "[--idle-ms N] [--json FILE] [--quiet]";

    private ClientMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.exit(run(args, System.out, System.err));
    }

    /** The command line: parses, runs, prints; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) throws InterruptedException {
        try {
            Options o = Options.parse(args);
            String host = o.positional.get(0);
            // Every number in its range before any work: nothing is truncated to fit an int.
            int port = (int) within("PORT", o.positional.get(1), 1, 65535);
            int children = (int) within("NCHILDREN", o.positional.get(2), 1, 100_000);
            int requests = (int) within("NREQUESTS", o.positional.get(3), 1, 10_000_000);
            long millis = o.positional.size() == 5 ? within("MILLIS", o.positional.get(4), 0, Protocol.MAX_DELAY_MS) : -1;
            if (o.json != null) {
                writable(Path.of(o.json));  // before the load, not after it
            }
            try {
                InetAddress.getByName(host);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("unknown host '" + host + "'");
            }
            LoadReport report = LoadClient.run(host, port, children, requests, millis, o.timeoutMs, o.silent, o.idleMs,
                    o.quiet ? null : out);
            return print(report, o.json, out, err);
        } catch (IllegalArgumentException e) {
            err.println("client: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
    }

    /** Prints the report (and writes it to {@code json} unless null); returns the exit code. */
    private static int print(LoadReport report, String json, PrintStream out, PrintStream err) {
        out.print(report.text());
        if (report.errors().containsKey("refused") && report.ok() == 0) {
            out.println("nothing answered at " + report.host() + ":" + report.port()
                    + ": is a server running? start one with `./lab serve DESIGN --port " + report.port() + "`");
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
    }

    /** The command line's options, and its positional arguments (their number checked, not yet their values). */
    private static final class Options {
        final List<String> positional = new ArrayList<>();
        long timeoutMs = 60_000;
        int silent = 0;
        long idleMs = 0;
        String json = null;
        boolean quiet = false;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--timeout-ms":
                        o.timeoutMs = within("--timeout-ms", value(args, ++i, "--timeout-ms"), 1, 3_600_000);
                        break;
                    case "--silent":
                        o.silent = (int) within("--silent", value(args, ++i, "--silent"), 0, 10_000);
                        break;
                    case "--idle-ms":
                        o.idleMs = within("--idle-ms", value(args, ++i, "--idle-ms"), 0, 600_000);
                        break;
                    case "--json":
                        o.json = value(args, ++i, "--json");
                        break;
                    case "--quiet":
                        o.quiet = true;
                        break;
                    default:
                        if (args[i].startsWith("--")) {
                            throw new IllegalArgumentException("unknown option " + args[i]);
                        }
                        o.positional.add(args[i]);
                }
            }
            if (o.positional.size() < 4 || o.positional.size() > 5) {
                throw new IllegalArgumentException("expected HOST PORT NCHILDREN NREQUESTS [MILLIS], got "
                        + o.positional.size() + " argument(s)");
            }
            return o;
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
