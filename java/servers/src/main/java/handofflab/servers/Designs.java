package handofflab.servers;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server designs, as the catalog (specs/catalog.toml, [[server]]) describes them: {@code ./lab}
 * and the grader pass its table as {@code -Dhandofflab.designs=NAME/CLASS/THREADS[/HANDOFF/SIZED_BY],...}
 * (tests call {@link #use}). Java keeps no list of designs: one name per concept, from the TLA+
 * spec to the benchmark plot, and one place that says what each is.
 */
public final class Designs {
    /**
     * One design: its server class; its threads (one, per-connection, or a pool); and for a
     * pre-threaded design, the kit handoff it passes connections through and what sizes it
     * (slots, workers, or nothing).
     */
    public record Design(String name, String serverClass, String threads, String handoff, String sizedBy) {
        /** Whether a kit handoff carries its connections (so {@code --handoff} can replace it). */
        public boolean preThreaded() {
            return handoff != null;
        }

        /** How many requests it serves at once, for Little's-law bound. */
        public int parallelism(int workers, int children) {
            switch (threads) {
                case "one": return 1;
                case "per-connection": return children;
                default: return Math.min(workers, children);
            }
        }
    }

    private static volatile Map<String, Design> table;

    private Designs() {
    }

    /** Uses this table of designs (the format of -Dhandofflab.designs). */
    public static void use(String text) {
        Map<String, Design> t = new LinkedHashMap<>();
        for (String entry : text.split(",")) {
            String[] f = entry.split("/");
            if (f.length != 3 && f.length != 5 || !List.of("one", "per-connection", "pool").contains(f[2])) {
                throw new IllegalStateException("a design entry is NAME/CLASS/THREADS[/HANDOFF/SIZED_BY], got '" + entry + "'");
            }
            t.put(f[0], new Design(f[0], f[1], f[2], f.length == 5 ? f[3] : null, f.length == 5 ? f[4] : null));
        }
        table = t;
    }

    private static Map<String, Design> table() {
        if (table == null) {
            String text = System.getProperty("handofflab.designs");
            if (text == null || text.isEmpty()) {
                throw new IllegalStateException("no designs: -Dhandofflab.designs is not set (./lab serve, ./lab bench "
                        + "and the grader pass the catalog's)");
            }
            use(text);
        }
        return table;
    }

    /** The designs' names, in the catalog's order (the paper's Table 1, then two beyond it). */
    public static List<String> names() {
        return new ArrayList<>(table().keySet());
    }

    /** A design by name; an error naming the designs if there is none. */
    public static Design of(String name) {
        Design d = table().get(name);
        if (d == null) {
            throw new IllegalArgumentException("unknown design '" + name + "'; the designs are: " + String.join(", ", names()));
        }
        return d;
    }

    /** Builds (and binds) a server of the design's class; {@link TcpServer#start} starts it. */
    public static TcpServer create(ServerConfig config) throws IOException {
        config.validate();
        Design d = of(config.design());
        try {
            Class<?> cls = Class.forName(Designs.class.getPackageName() + "." + d.serverClass());
            return (TcpServer) cls.getConstructor(ServerConfig.class).newInstance(config);
        } catch (InvocationTargetException e) {  // what the constructor refused: the message is for people
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(d.serverClass() + " failed to start: " + cause, cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the catalog's design " + d.name() + " names class " + d.serverClass()
                    + ", which has no public (ServerConfig) constructor here: " + e, e);
        }
    }
}
