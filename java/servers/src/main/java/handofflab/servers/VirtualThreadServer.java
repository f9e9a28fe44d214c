package handofflab.servers;

import java.io.IOException;
import java.util.concurrent.ThreadFactory;

/**
 * Beyond the paper: thread per client with JDK 21's virtual threads, which make a thread cheap
 * enough to start per request. Reached by reflection so the kit still builds on JDK 17; on an
 * older runtime it refuses to start with a message naming the fix.
 */
public final class VirtualThreadServer extends ThreadPerClientServer {

    public VirtualThreadServer(ServerConfig config) throws IOException {
        super(config, virtualThreads());
    }

    static boolean available() {
        return Runtime.version().feature() >= 21;
    }

    static ThreadFactory virtualThreads() {
        if (!available()) {
            throw new UnsupportedOperationException("the VirtualThreads design needs a JDK 21 or newer, but this is JDK "
                    + Runtime.version() + " (" + System.getProperty("java.home") + "): install one (e.g. Temurin 25) and "
                    + "`./lab` picks it up, or set HANDOFFLAB_JAVA to its bin/java");
        }
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            return (ThreadFactory) builderType.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("JDK " + Runtime.version() + " has no virtual-thread builder: " + e, e);
        }
    }
}
