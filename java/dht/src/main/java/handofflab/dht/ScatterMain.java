package handofflab.dht;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code java handofflab.dht.ScatterMain --id I --peers host:port,... --rows R --nonzeros Z [options]}:
 * one process of the paper's example (Malard & Stewart, Sec. 2.1, Figs. 1 and 2, Table 1). Process 0
 * reads a sparse matrix into its local table, one non-zero at a time (Fig. 1), then scatters its rows
 * cyclically, row i to process i % p (Fig. 2): it deletes the row from its local table and sends it,
 * waiting after every L rows; then all processes meet at the barrier. Each process then checks that
 * it holds exactly its rows, each value once.
 *
 * <ul>
 * <li>{@code --impl dht} (default): the kit's distributed table, HASH_Insert / HASH_Wait / HASH_Flush,
 *     with the targets' service threads and completion queues of depth {@code --q}.</li>
 * <li>{@code --impl send-recv}: the paper's baseline, "a simple MPI implementation ... running on a
 *     single user thread ... only the standard blocking point-to-point MPI_Send and MPI_Recv": process
 *     0 writes each row to the target's socket and goes on (a blocking send returns once its buffer may
 *     be reused); each target's one thread reads rows and inserts them into its table; at the end each
 *     target acknowledges, which is the barrier. No service thread, no buffer pool, no reply per row.</li>
 * </ul>
 *
 * The matrix is a {@link SparseMatrix} made from {@code --rows}, {@code --nonzeros} and {@code --seed}.
 * Prints one JSON line: process 0's read, initiation, completion and barrier times per non-zero of
 * the matrix. Exit codes as {@link DhtMain}'s: 0 all held exactly once, 1 some value lost, duplicated
 * or changed, 2 bad arguments, 3 the table failed.
 */
public final class ScatterMain {
    private static final int READY = 1;   // a target's first byte to process 0, in the send/receive baseline
    private ScatterMain() {
    }

    public static void main(String[] args) throws Exception {
        int id, rows, nonzeros, blocking, q, maxSlots;
        long seed;
        String peers, impl, file;
        double connect;
        try {
            Args a = new Args(args, Set.of("--id", "--peers", "--rows", "--nonzeros", "--seed", "--L", "--q", "--impl",
                    "--max-slots", "--connect-seconds", "--matrix-file"), Set.of());
            id = a.integer("--id", -1);
            peers = a.text("--peers", null);
            rows = a.integer("--rows", 0);
            nonzeros = a.integer("--nonzeros", 0);
            seed = a.longInteger("--seed", 1);
            blocking = a.integer("--L", 100);
            q = a.integer("--q", 4);
            impl = a.text("--impl", "dht");
            maxSlots = a.integer("--max-slots", 1 << 22);
            connect = a.decimal("--connect-seconds", 30);
            file = a.text("--matrix-file", null);
            if (peers == null || id < 0 || (file == null && (rows < 1 || nonzeros < rows))) {
                throw new IllegalArgumentException("need --id, --peers, and --matrix-file or --rows >= 1 and --nonzeros >= rows");
            }
            if (!List.of("dht", "send-recv").contains(impl) || blocking < 1 || q < 0 || maxSlots < 1) {
                throw new IllegalArgumentException("need --impl dht or send-recv, --L >= 1, --q >= 0, --max-slots >= 1");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("scatter: " + e.getMessage() + "\nusage: ScatterMain --id I --peers host:port,... "
                    + "(--rows R --nonzeros Z [--seed S] | --matrix-file FILE.mtx) [--impl dht|send-recv] [--L L] [--q Q] [--max-slots S]");
            System.exit(2);
            return;
        }
        SparseMatrix matrix;
        DhtConfig config;
        try {
            matrix = file != null ? SparseMatrix.read(Path.of(file)) : new SparseMatrix(rows, nonzeros, seed);
            config = new DhtConfig(id, DhtConfig.parsePeers(peers), 2, 8, Math.min(1024, maxSlots), maxSlots,
                    Math.max(1, matrix.longestRow()), q + 4, q, connect, false);
        } catch (IOException e) {
            System.err.println("scatter: cannot read " + file + ": " + e);
            System.exit(2);
            return;
        } catch (IllegalArgumentException e) {
            System.err.println("scatter: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(scatter(matrix, config, id, blocking, impl, q));
    }

    /** This process's part of the scatter over {@code impl}, its JSON line printed; returns the exit code. */
    private static int scatter(SparseMatrix matrix, DhtConfig config, int id, int blocking, String impl, int q) throws Exception {
        try {
            Scatter s = new Scatter(matrix, config.processes(), id, blocking);
            if (impl.equals("dht")) {
                try (DhtNode node = new DhtNode(config)) {
                    s.overDht(node);
                }
            } else {
                s.overSendRecv(config);
            }
            System.out.println(s.json(impl, q));
            System.out.flush();
            return s.wrong == 0 ? 0 : 1;
        } catch (DhtException e) {
            System.err.println("scatter process " + id + ": " + e.getMessage());
            return 3;
        }
    }

    /** One process's part of the scatter, its times (ns, process 0's) and its check. */
    static final class Scatter {
        final SparseMatrix matrix;
        final int p, me, blocking, m;
        long read, initiation, completion, barrier;
        long wrong;
        String firstWrong = "";

        Scatter(SparseMatrix matrix, int p, int me, int blocking) {
            this.matrix = matrix;
            this.p = p;
            this.me = me;
            this.blocking = blocking;
            this.m = Math.max(1, matrix.longestRow());   // a file's matrix may have no non-zero at all
        }

        /** Fig. 1: process 0 reads the matrix into its local table, one non-zero per insert (from memory, not a file). */
        void readInto(LocalTable table) {
            long t0 = System.nanoTime();
            int[] batch = new int[2];
            for (int i = 1; i <= matrix.rows; i++) {
                for (int k = 0; k < matrix.rowLength(i); k++) {
                    matrix.value(i, k, batch);
                    if (table.insert(i, 1, batch) != 1) {
                        throw new DhtException("process 0's table is full after " + table.size() + " values; start it with a larger --max-slots");
                    }
                }
            }
            read = System.nanoTime() - t0;
        }

        /** Fig. 2 over the kit's table: delete a row locally, HASH_Insert it to its process, HASH_Wait every L rows, HASH_Flush. */
        void overDht(DhtNode node) throws InterruptedException {
            LocalTable table = node.localTable();
            if (me == 0) {
                readInto(table);
                int[] row = new int[2 * m];
                List<Request> reqs = new ArrayList<>(blocking);
                long t0 = System.nanoTime(), initiating = 0, waiting = 0;
                // ANCHOR: scatter
                for (int i = 1; i <= matrix.rows; i++) {
                    int target = i % p;
                    if (target != 0) {
                        long s = System.nanoTime();
                        int n = table.delete(i, m, row);
                        if (n > 0) {   // a file's matrix may have empty rows
                            reqs.add(node.insert(target, i, n, Arrays.copyOf(row, 2 * n)));   // the paper's batch slice
                        }
                        initiating += System.nanoTime() - s;
                    }
                    if (reqs.size() == blocking || (i == matrix.rows && !reqs.isEmpty())) {
                        long s = System.nanoTime();
                        node.await(reqs);
                        waiting += System.nanoTime() - s;
                        for (Request r : reqs) {
                            if (r.processed() != r.n) {
                                throw new DhtException("process " + r.target() + " stored " + r.processed() + " of the "
                                        + r.n + " values of row " + r.key() + (r.tableFull() ? ": its table is full; start it with a larger --max-slots" : ""));
                            }
                        }
                        reqs.clear();
                    }
                }
                node.flush();
                // ANCHOR_END: scatter
                barrier = System.nanoTime() - t0;
                initiation = initiating;
                completion = initiating + waiting;
            } else {
                node.flush();
            }
            check(table);
        }

        /** The baseline: the same loop with blocking sends over a plain socket to each process, received by its one thread. */
        void overSendRecv(DhtConfig config) {
            LocalTable table = new ThreadedTable(new SerialTable(2, 8, config.initialSlots, config.maxSlots));
            try {
                if (me == 0) {
                    Socket[] to = new Socket[p];
                    try {
                        for (int t = 1; t < p; t++) {   // first, so that a failed read ends the targets' waits too
                            to[t] = connect(config.peers.get(t), config.connectSeconds);
                        }
                        readInto(table);
                        int[] values = new int[2 * m];
                        ByteBuffer message = ByteBuffer.allocate(12 + 8 * m);
                        long t0 = System.nanoTime();
                        for (int i = 1; i <= matrix.rows; i++) {
                            int target = i % p;
                            if (target != 0) {
                                int n = table.delete(i, m, values);
                                if (n == 0) {
                                    continue;
                                }
                                message.clear().putLong(i).putInt(n).asIntBuffer().put(values, 0, 2 * n);
                                to[target].getOutputStream().write(message.array(), 0, 12 + 8 * n);   // MPI_Send
                            }
                        }
                        initiation = completion = System.nanoTime() - t0;
                        for (int t = 1; t < p; t++) {
                            new DataOutputStream(to[t].getOutputStream()).writeLong(-1);   // the end, and the barrier's call
                        }
                        for (int t = 1; t < p; t++) {
                            if (to[t].getInputStream().read() != 1) {
                                throw new DhtException("process " + t + " ended before acknowledging the scatter's end (see its error)");
                            }
                        }
                        barrier = System.nanoTime() - t0;
                    } finally {
                        for (Socket s : to) {
                            if (s != null) {
                                s.close();
                            }
                        }
                    }
                } else {
                    receive(table, config);
                }
            } catch (IOException e) {
                throw new DhtException("the send/receive baseline lost its connection: " + e);
            }
            check(table);
        }

        /** A target of the baseline: MPI_Recv in a loop, one row per message, into its table; then the acknowledgement. */
        private void receive(LocalTable table, DhtConfig config) throws IOException {
            InetSocketAddress mine = config.peers.get(me);
            try (ServerSocket server = new ServerSocket()) {
                server.bind(new InetSocketAddress(mine.getHostString(), mine.getPort()));
                server.setSoTimeout((int) (config.connectSeconds * 1000) + 10_000);   // process 0 never came
                try (Socket from = server.accept()) {
                    from.getOutputStream().write(READY);   // process 0 knows it reached this process, not a proxy alone
                    DataInputStream in = new DataInputStream(new BufferedInputStream(from.getInputStream(), 1 << 16));
                    int[] values = new int[2 * m];
                    for (long row = in.readLong(); row >= 0; row = in.readLong()) {
                        int n = in.readInt();
                        if (n < 0 || n > m) {
                            throw new DhtException("process 0 sent a row of " + n + " values; the longest row has " + m);
                        }
                        for (int k = 0; k < 2 * n; k++) {
                            values[k] = in.readInt();
                        }
                        if (table.insert(row, n, values) != n) {
                            throw new DhtException("process " + me + "'s table is full after " + table.size()
                                    + " values; start it with a larger --max-slots");
                        }
                    }
                    from.getOutputStream().write(1);
                }
            } catch (EOFException e) {
                throw new DhtException("process 0 closed its connection in the middle of the scatter");
            } catch (BindException e) {
                throw new DhtException("cannot listen on " + mine + ": " + e.getMessage());
            } catch (SocketTimeoutException e) {
                throw new DhtException("process 0 did not connect within " + (config.connectSeconds + 10) + " s; did it start?");
            }
        }

        /** A connection to the target at {@code to}, once it has said it is ready: a proxy in front of it (Toxiproxy,
         *  for a network with latency) accepts at once and closes when the target is not listening yet, and what
         *  process 0 wrote into that connection would be lost; so it waits for the target's byte, and tries again. */
        private static Socket connect(InetSocketAddress to, double seconds) throws IOException {
            long deadline = System.nanoTime() + (long) (seconds * 1e9);
            while (true) {
                Socket s = new Socket();
                String why;
                try {
                    s.connect(new InetSocketAddress(to.getHostString(), to.getPort()), 2000);
                    s.setTcpNoDelay(true);
                    s.setSoTimeout(10_000);   // a target that accepted no connection: named, never waited for forever
                    if (s.getInputStream().read() == READY) {
                        s.setSoTimeout(0);
                        return s;
                    }
                    why = "it closed the connection before it was ready";
                } catch (IOException e) {   // refused (not up yet), reset by the proxy, or no READY in 10 s
                    why = e.toString();
                }
                s.close();
                if (System.nanoTime() > deadline) {
                    throw new DhtException("cannot reach process at " + to + " after " + seconds + " s: " + why);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    throw new DhtException("interrupted while connecting to " + to);
                }
            }
        }

        /** After the barrier: this process holds its rows (row i % p == me), each value once, and nothing else. */
        void check(LocalTable table) {
            long expected = 0;
            for (int i = 1; i <= matrix.rows; i++) {
                if (i % p != me) {
                    continue;
                }
                int length = matrix.rowLength(i);
                expected += length;
                int[] out = new int[2 * (length + 1)];
                int got = table.find(i, length + 1, out);
                if (got != length || !Arrays.equals(DhtMain.Workload.sortedPairs(Arrays.copyOf(out, 2 * length)),
                        DhtMain.Workload.sortedPairs(matrix.row(i)))) {
                    mark(Math.abs(got - length) + (got == length ? length : 0),
                            "row " + i + " has " + got + " values at process " + me + ", not its " + length + " non-zeros");
                }
            }
            if (table.size() != expected) {
                mark(Math.abs(table.size() - expected), "process " + me + " holds " + table.size() + " values, not the "
                        + expected + " non-zeros of its rows");
            }
        }

        void mark(long howMany, String what) {
            wrong += howMany;
            if (firstWrong.isEmpty()) {
                firstWrong = what;
            }
        }

        String json(String impl, int q) {
            double z = matrix.nonzeros;
            return String.format(Locale.ROOT, "{\"id\": %d, \"p\": %d, \"impl\": \"%s\", \"q\": %d, \"rows\": %d, "
                            + "\"nonzeros\": %d, \"longest_row\": %d, \"L\": %d, \"wrong\": %d, \"first_wrong\": \"%s\", "
                            + "\"read_us_per_nonzero\": %.4f, \"init_us_per_nonzero\": %.4f, "
                            + "\"completion_us_per_nonzero\": %.4f, \"barrier_us_per_nonzero\": %.4f}",
                    me, p, impl, q, matrix.rows, matrix.nonzeros, m, blocking, wrong, firstWrong.replace("\"", "'"),
                    read / 1e3 / z, initiation / 1e3 / z, completion / 1e3 / z, barrier / 1e3 / z);
        }
    }
}
