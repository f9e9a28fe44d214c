package handofflab.servers;

import java.net.Socket;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An accepted connection as the handoffs carry it. The first worker to serve it claims it; a
 * second claim means the handoff duplicated it, which the server counts instead of serving twice.
 */
public final class Connection {
    /** What a pre-threaded server hands each worker to tell it to stop (never served). */
    static final Connection STOP = new Connection(null);

    final Socket socket;
    private final AtomicBoolean claimed = new AtomicBoolean();

    Connection(Socket socket) {
        this.socket = socket;
    }

    boolean claim() {
        return claimed.compareAndSet(false, true);
    }
}
