package handofflab.servers;

import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Pre-threaded, each worker accepting for itself under one lock (Table 1, row 3; Stevens's
 * "accept with locking"). The lock once kept a whole pool from waking for every connection
 * (the thundering herd); Java's accept is thread-safe without it, so the lock here is the
 * paper's design, kept to be measured. There is no handoff: the thread that accepts serves.
 * Its TLA+ twin is specs/LockedAccept.tla.
 */
public final class LockedAcceptServer extends TcpServer {
    private final Object acceptLock = new Object();
    private final List<Thread> workers = new ArrayList<>();

    public LockedAcceptServer(ServerConfig config) throws IOException {
        super(config);
        for (int i = 0; i < config.workers(); i++) {
            workers.add(new Thread(this::work, "worker-" + i));
        }
    }

    @Override
    public void start() {
        workers.forEach(Thread::start);
    }

    // ANCHOR: locked
    private void work() {
        while (true) {
            Socket s;
            synchronized (acceptLock) {
                s = accept();
            }
            if (s == null) {
                return;
            }
            handleRequest(s);
        }
    }
    // ANCHOR_END: locked

    @Override
    protected boolean drain(long deadlineNanos) throws InterruptedException {
        for (Thread t : workers) {
            if (!join(t, deadlineNanos)) {
                return false;
            }
        }
        return true;
    }
}
