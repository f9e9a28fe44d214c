package handofflab.servers;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;

/**
 * The acceptor starts a new thread for every connection (Table 1, row 2). There is no handoff to
 * get wrong, but a thread's start-up is paid on every request and their number is unbounded.
 */
public class ThreadPerClientServer extends TcpServer {
    private final Thread acceptor = new Thread(this::run, "acceptor");
    private final ThreadFactory threads;
    private final Set<Thread> live = ConcurrentHashMap.newKeySet();

    public ThreadPerClientServer(ServerConfig config) throws IOException {
        this(config, Thread::new);
    }

    protected ThreadPerClientServer(ServerConfig config, ThreadFactory threads) throws IOException {
        super(config);
        this.threads = threads;
    }

    @Override
    public void start() {
        acceptor.start();
    }

    private void run() {
        acceptEachAtOnce(s -> {
            Thread[] self = new Thread[1];
            self[0] = threads.newThread(() -> {
                try {
                    handleRequest(s);
                } finally {
                    live.remove(self[0]);
                }
            });
            live.add(self[0]);  // before start, so drain never misses a running handler
            self[0].start();
        });
    }

    @Override
    protected boolean drain(long deadlineNanos) throws InterruptedException {
        if (!join(acceptor, deadlineNanos)) {
            return false;
        }
        for (Thread t : live.toArray(new Thread[0])) {
            if (!join(t, deadlineNanos)) {
                return false;
            }
        }
        return true;
    }
}
