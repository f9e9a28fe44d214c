package handofflab.servers;

import java.io.IOException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Beyond the paper: what a Java programmer would write today. The acceptor submits each
 * connection to a fixed {@link ThreadPoolExecutor}, whose handoff is the JDK's
 * {@link LinkedBlockingQueue} (a two-lock queue, like {@code TwoLockQueue}). The baseline the
 * kit's own handoffs are measured against.
 */
public final class ThreadPoolServer extends TcpServer {
    private final Thread acceptor = new Thread(this::run, "acceptor");
    private final ThreadPoolExecutor pool;

    public ThreadPoolServer(ServerConfig config) throws IOException {
        super(config);
        pool = new ThreadPoolExecutor(config.workers(), config.workers(), 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
        pool.prestartAllCoreThreads();  // pre-threaded, like the paper's designs
    }

    @Override
    public void start() {
        acceptor.start();
    }

    private void run() {
        acceptEachAtOnce(s -> pool.execute(() -> handleRequest(s)));
    }

    @Override
    protected boolean drain(long deadlineNanos) throws InterruptedException {
        if (!join(acceptor, deadlineNanos)) {
            return false;
        }
        pool.shutdown();  // runs every task already queued, then the threads exit
        return pool.awaitTermination(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
}
