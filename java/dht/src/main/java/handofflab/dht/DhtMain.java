package handofflab.dht;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code java handofflab.dht.DhtMain --id I --peers host:port,... [options]}: one process of a
 * distributed table running one of the paper's micro-benchmarks (Malard & Stewart, Sec. 3), then
 * checking that every value was stored once, found once and deleted once.
 *
 * <ul>
 * <li>{@code --pattern n-n} (default): every process inserts values for keys of every process
 *     (key k lives on process k % p); {@code 1-n}: process 0 alone inserts, to every process;
 *     {@code n-1}: every process inserts to process 0.</li>
 * <li>{@code --values V}: values each inserting process stores; {@code --n}: values per request
 *     (the request size); {@code --L}: requests initiated before each HASH_Wait (the blocking
 *     factor); {@code --q}: the targets' completion-queue depth; {@code --completions CLASS}: the
 *     targets' {@link CompletionQueue} (default {@code DepthQueue}; a lab's submission by its full
 *     name).</li>
 * </ul>
 *
 * Each phase (insert, find, delete) is timed as the paper does: the initiation time (in the
 * HASH_Insert/Find/Delete calls), the completion time (plus HASH_Wait) and the barrier time (plus
 * HASH_Flush). It prints one JSON line. Exit 0 when every value was stored, found and deleted exactly
 * once; 1 when one was lost, duplicated or wrong; 2 for bad arguments; 3 when the table failed (a
 * target unreachable or dead, a table full), with the reason on standard error.
 */
public final class DhtMain {
    private DhtMain() {
    }

    public static void main(String[] args) throws Exception {
        int id, values, n, blocking, q, buffers, maxRequest, maxSlots;
        String peers, pattern, completions;
        double connect;
        boolean rawPut;
        try {
            Args a = new Args(args, Set.of("--id", "--peers", "--pattern", "--values", "--n", "--L", "--q", "--max-request",
                    "--max-slots", "--connect-seconds", "--completions", "--buffers"), Set.of("--raw-put"));
            id = a.integer("--id", -1);
            peers = a.text("--peers", null);
            pattern = a.text("--pattern", "n-n");
            values = a.integer("--values", 10_000);
            n = a.integer("--n", 1);
            blocking = a.integer("--L", 100);
            q = a.integer("--q", 4);
            buffers = a.integer("--buffers", q + 4);  // its own knob: the queue depth and the pool vary one at a time
            maxRequest = a.integer("--max-request", 256);
            maxSlots = a.integer("--max-slots", 1 << 22);
            connect = a.decimal("--connect-seconds", 30);
            completions = a.text("--completions", null);
            rawPut = a.flag("--raw-put");
            if (peers == null || id < 0) {
                throw new IllegalArgumentException("--id and --peers are required");
            }
            if (!List.of("n-n", "1-n", "n-1").contains(pattern) || values < 0 || n < 1 || blocking < 1 || maxSlots < 1) {
                throw new IllegalArgumentException("need --pattern n-n, 1-n or n-1, --values >= 0, --n >= 1, --L >= 1, --max-slots >= 1");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("dht: " + e.getMessage() + "\nusage: DhtMain --id I --peers host:port,host:port,... "
                    + "[--pattern n-n|1-n|n-1] [--values V] [--n N] [--L L] [--q Q] [--buffers B] [--max-request M] [--max-slots S] "
                    + "[--completions CLASS] [--raw-put]");
            System.exit(2);
            return;
        }
        DhtConfig config;
        try {
            List<InetSocketAddress> list = DhtConfig.parsePeers(peers);
            config = new DhtConfig(id, list, 2, 8, Math.min(1024, maxSlots), maxSlots, maxRequest, buffers, q, connect, rawPut);
            if (completions != null) {
                config = config.withCompletions(completions);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("dht: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            Workload w;
            try (DhtNode node = new DhtNode(config)) {
                System.err.println("dht process " + id + ": connected to all " + config.processes() + " processes");
                w = new Workload(node, pattern, values, n, blocking);
                System.out.println(w.run());
            }
            System.out.flush();
            System.exit(w.wrong == 0 ? 0 : 1);
        } catch (DhtException e) {
            System.err.println("dht process " + id + ": " + e.getMessage());
            System.exit(3);
        }
    }

    /** The micro-benchmark of one process: insert, find, delete, each timed in the paper's three ways, each checked. */
    public static class Workload {   // not final: a test overrides rawAddress to show the check catches an overwrite
        final DhtNode node;
        final String pattern;
        final int values, n, blocking, p, me;
        final long[] initiation = new long[3], completion = new long[3], barrier = new long[3];  // ns, per phase
        long wrong;              // values lost, duplicated, or not the ones inserted
        String firstWrong = "";

        Workload(DhtNode node, String pattern, int values, int n, int blocking) {
            this.node = node;
            this.pattern = pattern;
            this.values = values;
            this.n = n;
            this.blocking = blocking;
            this.p = node.processes();
            this.me = node.id();
        }

        boolean originates() {
            return !pattern.equals("1-n") || me == 0;
        }

        int targetOf(long key) {
            return pattern.equals("n-1") ? 0 : (int) (key % p);
        }

        /** Request j of this process: its key (unique to this origin) and its values (unique over the whole run). */
        long key(int j) {
            return (long) me * 1_000_000_000L + j;
        }

        /** The raw put's request j: the address in its target's array where this origin's values go (LAPI_Put names
         *  one). Each origin owns 1/p of every target's array, so no origin overwrites another's values. */
        long rawAddress(int j) {
            return (long) me * (RawPut.RAW_INTS / p) + (long) j * n * node.config().width;
        }

        int[] valuesOf(int j, int count) {
            int[] v = new int[count * 2];
            for (int i = 0; i < count; i++) {
                v[2 * i] = me;                 // the paper's pairs of ints: here (origin, sequence number)
                v[2 * i + 1] = j * n + i;
            }
            return v;
        }

        String run() throws InterruptedException {
            int requests = originates() ? (values + n - 1) / n : 0;
            List<int[]> found = new ArrayList<>(), deleted = new ArrayList<>();
            boolean raw = node.config().rawPut;   // the baseline: timed puts into an array, then untimed gets that check them
            int phases = raw ? 2 : 3, timed = raw ? 1 : 3;
            if (raw && (long) values * node.config().width > RawPut.RAW_INTS / p) {
                throw new DhtException("the raw put of " + values + " values per process needs " + values * node.config().width
                        + " ints of each target's array, which gives each of the " + p + " processes "
                        + RawPut.RAW_INTS / p + ": run it with fewer --values or fewer processes");
            }
            for (int phase = 0; phase < phases; phase++) {
                runPhase(phase, requests, raw, phase == 1 ? found : phase == 2 ? deleted : null);
            }
            long left = node.localSize();   // after the last flush every delete has been applied
            if (left != 0 && !raw) {
                wrong += left;
                firstWrong = firstWrong.isEmpty() ? left + " values left in process " + me + "'s table after every delete" : firstWrong;
            }
            return json(requests, raw, timed);
        }

        /**
         * One phase (0 insert, 1 find, 2 delete) of {@code requests} requests, timed in the paper's three ways, then
         * checked; {@code outs} (null for the inserts) gets the values each find or delete returns.
         */
        private void runPhase(int phase, int requests, boolean raw, List<int[]> outs) throws InterruptedException {
            long t0 = System.nanoTime(), initiating = 0, waiting = 0;
            List<Request> batch = new ArrayList<>(blocking);
            List<Request> all = new ArrayList<>(requests);
            // ANCHOR: blocking
            for (int j = 0; j < requests; j++) {
                int count = Math.min(n, values - j * n);
                int target = targetOf(key(j));
                long key = raw ? rawAddress(j) : key(j);
                long s = System.nanoTime();
                Request r;
                if (phase == 0) {
                    r = node.insert(target, key, count, valuesOf(j, count));
                } else {
                    int[] out = new int[count * 2];
                    outs.add(out);
                    r = phase == 1 ? node.find(target, key, count, out) : node.delete(target, key, count, out);
                }
                initiating += System.nanoTime() - s;
                batch.add(r);
                all.add(r);
                if (batch.size() == blocking || j == requests - 1) {
                    s = System.nanoTime();
                    node.await(batch);
                    waiting += System.nanoTime() - s;
                    batch.clear();
                }
            }
            node.flush();
            // ANCHOR_END: blocking
            long end = System.nanoTime();
            initiation[phase] = initiating;
            completion[phase] = initiating + waiting;
            barrier[phase] = end - t0;
            for (int j = 0; j < all.size(); j++) {
                check(phase, j, all.get(j), phase == 0 ? null : outs.get(j));
            }
        }

        /** The one JSON line this process prints: the run's parameters, what was wrong, the phases' times per value. */
        private String json(int requests, boolean raw, int timed) {
            int total = originates() ? values : 0;
            return String.format(Locale.ROOT, "{\"id\": %d, \"p\": %d, \"impl\": \"%s\", \"q\": %d, "
                            + "\"pattern\": \"%s\", \"values\": %d, \"n\": %d, \"L\": %d, "
                            + "\"requests\": %d, \"wrong\": %d, \"first_wrong\": \"%s\", "
                            + "\"init_us_per_value\": [%s], \"completion_us_per_value\": [%s], \"barrier_us_per_value\": [%s], "
                            + "\"service_waiting_share\": %.4f, \"buffers\": %d, %s}",
                    me, p, raw ? "raw-put" : "dht", node.config().completionQueue, pattern, total, n, blocking, requests,
                    wrong, firstWrong.replace("\"", "'"),
                    perValue(initiation, total, timed), perValue(completion, total, timed), perValue(barrier, total, timed),
                    node.serviceWaitingShare(), node.config().buffers, node.targetTimeShares());
        }

        /** An insert stored all its values; a find returned exactly them; a delete removed exactly them. */
        void check(int phase, int j, Request r, int[] out) {
            int count = r.n;
            if (r.tableFull()) {
                throw new DhtException("target " + r.target() + "'s table is full: it stored " + r.processed() + " of "
                        + count + " values of " + r + "; start the processes with a larger --max-slots");
            }
            if (r.processed() != count) {
                mark(count - r.processed(), (phase == 1 ? "find" : phase == 2 ? "delete" : "insert") + " of key " + r.key()
                        + " processed " + r.processed() + " of " + count + " values");
                return;
            }
            if (out != null) {
                int[] sorted = sortedPairs(out), want = sortedPairs(valuesOf(j, count));
                if (!Arrays.equals(sorted, want)) {
                    mark(count, (node.config().rawPut ? "raw get at address " : phase == 1 ? "find of key " : "delete of key ")
                            + r.key() + " returned other values than " + (node.config().rawPut ? "put there" : "inserted"));
                }
            }
        }

        void mark(long howMany, String what) {
            wrong += howMany;
            if (firstWrong.isEmpty()) {
                firstWrong = what;
            }
        }

        static int[] sortedPairs(int[] v) {
            long[] pairs = new long[v.length / 2];
            for (int i = 0; i < pairs.length; i++) {
                pairs[i] = ((long) v[2 * i] << 32) | (v[2 * i + 1] & 0xffffffffL);
            }
            Arrays.sort(pairs);
            int[] out = new int[v.length];
            for (int i = 0; i < pairs.length; i++) {
                out[2 * i] = (int) (pairs[i] >> 32);
                out[2 * i + 1] = (int) pairs[i];
            }
            return out;
        }

        /** Per value, in µs, for the phases timed (insert, find, delete; the raw-put baseline times its puts only);
         *  the JSON array every implementation of the benchmark prints (java/dht-hazelcast too). */
        public static String perValue(long[] nanos, int total, int phases) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < phases; i++) {
                b.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.3f", total == 0 ? 0.0 : nanos[i] / 1e3 / total));
            }
            return b.toString();
        }
    }
}
