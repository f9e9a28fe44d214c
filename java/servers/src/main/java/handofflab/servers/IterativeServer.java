package handofflab.servers;

import java.io.IOException;

/** One thread accepts and serves, one connection at a time: the paper's baseline (Table 1, row 1). */
public final class IterativeServer extends TcpServer {
    private final Thread thread = new Thread(this::run, "iterative");

    public IterativeServer(ServerConfig config) throws IOException {
        super(config);
    }

    @Override
    public void start() {
        thread.start();
    }

    private void run() {
        acceptEachAtOnce(this::handleRequest);
    }

    @Override
    protected boolean drain(long deadlineNanos) throws InterruptedException {
        return join(thread, deadlineNanos);  // accepted = the one being served; the backlog is refused
    }
}
