package handofflab.servers;

import java.io.IOException;
import java.io.PrintStream;

/**
 * {@code ./lab serve DESIGN [--port N] [--workers N] [--slots N] [--delay-ms N]
 * [--request-timeout-ms N] [--backlog N] [--bind ADDRESS] [--handoff CLASS] [--grace-ms N] [--trace FILE]}: runs
 * one design until Ctrl-C (or SIGTERM), then serves what it accepted, for at most the grace
 * period (default: as long as the longest request may take), and prints its counts.
 * Exit codes: 0 every accepted connection served or counted as a problem; 1 not (it could not
 * drain, or a connection is unaccounted for); 2 bad arguments or cannot bind.
 */
public final class ServerMain {
    static final String USAGE = "usage: ./lab serve DESIGN [--port N] [--workers N] [--slots N] [--delay-ms N] "
            + "[--request-timeout-ms N] [--backlog N] [--bind ADDRESS] [--handoff CLASS] [--grace-ms N] [--trace FILE]";

    private ServerMain() {
    }

    public static void main(String[] args) {
        long[] grace = {-1};
        String[] trace = {null};
        try {
            args = withoutGrace(args, grace);
            args = withoutTrace(args, trace);
        } catch (IllegalArgumentException e) {
            System.err.println("serve: " + e.getMessage());
            System.exit(2);
        }
        TcpServer server = start(args, System.out, System.err, trace[0] == null ? null : java.nio.file.Paths.get(trace[0]));
        if (server == null) {
            System.exit(2);
        }
        // As long as the longest request may take: its request, its work, and the client's close.
        long graceMs = grace[0] >= 0 ? grace[0] : Protocol.MAX_DELAY_MS + 2 * server.config().requestTimeoutMs();
        // The server's threads keep the JVM alive; Ctrl-C or SIGTERM runs this hook, which drains
        // and then ends the JVM with an exit code that says whether it drained.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("stopping: no new connections; serving the ones accepted ...");
            int code = 1;
            try {
                boolean drained = server.shutdown(graceMs);
                long unaccounted = server.stats().unaccounted();
                long refused = server.stats().count(ServerStats.Problem.REFUSED_AT_SHUTDOWN);
                String why = refused > 0 ? refused + " connection(s) waiting in the kernel's queue were refused: no worker "
                        + "took them within half the grace (a longer --grace-ms, or more workers)"
                        + (drained ? "" : "; and " + lost(server))
                        : !drained ? lost(server)
                        : unaccounted != 0 ? unaccounted + " accepted connection(s) were neither served nor counted as a problem"
                        : "";
                System.out.println((why.isEmpty() ? "stopped cleanly: " : "stopped WITHOUT draining: " + why + "; ")
                        + server.stats().summary());
                code = why.isEmpty() ? 0 : 1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.out.flush();
            Runtime.getRuntime().halt(code);
        }));
    }

    private static String lost(TcpServer server) {
        return server instanceof PreThreadedServer ? ((PreThreadedServer) server).lostReport()
                : "connections were still being served when the grace period ended (a longer --grace-ms lets them finish)";
    }

    /** The arguments without {@code --grace-ms N}, whose value goes to {@code grace[0]}. */
    static String[] withoutGrace(String[] args, long[] grace) {
        java.util.List<String> rest = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--grace-ms") && i + 1 < args.length) {
                grace[0] = number("--grace-ms", args[++i]);
                if (grace[0] < 0 || grace[0] > 3_600_000) {
                    throw new IllegalArgumentException("--grace-ms must be 0..3600000 (an hour), got " + grace[0]);
                }
            } else {
                rest.add(args[i]);
            }
        }
        return rest.toArray(new String[0]);
    }

    /** The arguments without {@code --trace FILE}, whose value goes to {@code trace[0]}. */
    static String[] withoutTrace(String[] args, String[] trace) {
        java.util.List<String> rest = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--trace") && i + 1 < args.length) {
                trace[0] = args[++i];
            } else {
                rest.add(args[i]);
            }
        }
        return rest.toArray(new String[0]);
    }

    /** Parses, builds, binds and starts; prints the problem and returns null when it cannot. */
    public static TcpServer start(String[] args, PrintStream out, PrintStream err) {
        return start(args, out, err, null);
    }

    /** As above; with {@code trace}, a pre-threaded design's handoff is recorded into that file. */
    public static TcpServer start(String[] args, PrintStream out, PrintStream err, java.nio.file.Path trace) {
        ServerConfig config;
        try {
            config = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("serve: " + e.getMessage());
            err.println(USAGE);
            err.println("  designs: " + String.join(", ", Designs.names()));
            return null;
        }
        TcpServer server;
        try {
            server = Designs.create(config);
        } catch (IllegalArgumentException | UnsupportedOperationException | IOException e) {
            err.println("serve: " + e.getMessage());
            return null;
        }
        if (trace != null) {
            if (!(server instanceof PreThreadedServer)) {
                err.println("serve: --trace records a handoff, and " + config.design() + " has none: use a "
                        + "pre-threaded design (" + String.join(", ", Designs.names().stream()
                                .filter(n -> Designs.of(n).preThreaded()).toArray(String[]::new)) + ")");
                return null;  // the JVM exits, and the listener with it
            }
            ((PreThreadedServer) server).record(trace);
        }
        server.start();
        String handoff = server instanceof PreThreadedServer ? ", handoff " + ((PreThreadedServer) server).handoffName() : "";
        Designs.Design d = Designs.of(config.design());
        String threads = d.threads().equals("pool") ? config.workers() + " workers, " : "";
        String slots = "slots".equals(d.sizedBy()) ? config.slots() + " slots, " : "";
        out.println("serving " + config.design() + " on " + config.bind() + ":" + server.port() + " (" + threads + slots
                + "t_r " + config.delayMs() + " ms unless a request names its own" + handoff + ")");
        out.println("stop with Ctrl-C: connections already accepted are served first");
        out.flush();
        return server;
    }

    static ServerConfig parse(String[] args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("name a design");
        }
        ServerConfig c = ServerConfig.of(args[0]);
        for (int i = 1; i < args.length; i++) {
            String option = args[i];
            if (i + 1 == args.length) {
                throw new IllegalArgumentException("option " + option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--port": c = c.withPort(number(option, value)); break;
                case "--workers": c = c.withWorkers(number(option, value)); break;
                case "--slots": c = c.withSlots(number(option, value)); break;
                case "--delay-ms": c = c.withDelayMs(number(option, value)); break;
                case "--request-timeout-ms": c = c.withRequestTimeoutMs(number(option, value)); break;
                case "--handoff": c = c.withHandoff(value); break;
                case "--backlog":
                    c = new ServerConfig(c.design(), c.bind(), c.port(), c.workers(), c.slots(), c.delayMs(),
                            c.requestTimeoutMs(), number(option, value), c.handoff());
                    break;
                case "--bind":
                    c = new ServerConfig(c.design(), value, c.port(), c.workers(), c.slots(), c.delayMs(),
                            c.requestTimeoutMs(), c.backlog(), c.handoff());
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + option);
            }
        }
        c.validate();
        return c;
    }

    static int number(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a whole number, got '" + value + "'");
        }
    }
}
