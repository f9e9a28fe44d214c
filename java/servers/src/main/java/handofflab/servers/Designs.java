package handofflab.servers;

import java.io.IOException;
import java.util.List;

/**
 * The server designs by name. The names are the catalog's (specs/catalog.toml, [[server]]):
 * one name per concept, from the TLA+ spec to the benchmark plot.
 */
public final class Designs {
    /** In the order of the paper's Table 1, then the two designs from beyond the paper. */
    public static final List<String> NAMES = List.of("Iterative", "ThreadPerClient", "LockedAccept", "SharedBuffer",
            "TwoLockQueue", "ParallelHashTable", "Pipes", "VirtualThreads", "ThreadPool");

    /** The pre-threaded designs that hand off through a kit handoff, and that handoff's class. */
    public static final List<String> PRE_THREADED = List.of("SharedBuffer", "TwoLockQueue", "ParallelHashTable", "Pipes");

    private Designs() {
    }

    static boolean usesHandoff(String design) {
        return PRE_THREADED.contains(design);
    }

    /** The Java handoff class behind a pre-threaded design. */
    public static String handoffOf(String design) {
        switch (design) {
            case "SharedBuffer": return "MonitorBuffer";
            case "TwoLockQueue": return "TwoLockQueue";
            case "ParallelHashTable": return "ParallelHashTable";
            case "Pipes": return "PipeHandoff";
            default: throw new IllegalArgumentException(design + " hands off through no kit handoff");
        }
    }

    /** Builds (and binds) a server; {@link TcpServer#start} starts it. */
    public static TcpServer create(ServerConfig config) throws IOException {
        config.validate();
        switch (config.design()) {
            case "Iterative": return new IterativeServer(config);
            case "ThreadPerClient": return new ThreadPerClientServer(config);
            case "LockedAccept": return new LockedAcceptServer(config);
            case "VirtualThreads":
                VirtualThreadServer.virtualThreads();  // refuses before binding on JDK < 21
                return new VirtualThreadServer(config);
            case "ThreadPool": return new ThreadPoolServer(config);
            default: return new PreThreadedServer(config, handoffOf(config.design()));
        }
    }
}
