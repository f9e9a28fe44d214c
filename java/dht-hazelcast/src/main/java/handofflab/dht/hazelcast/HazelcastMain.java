package handofflab.dht.hazelcast;

import static handofflab.dht.DhtMain.Workload.perValue;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.PartitionAwareKey;
import handofflab.dht.Args;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * {@code java handofflab.dht.hazelcast.HazelcastMain --id I --peers host:port,... [--listen PORT] [--pattern --values --n --L]}:
 * one member of a Hazelcast cluster running the same micro-benchmark as java/dht's DhtMain, on an
 * {@code IMap}, with its asynchronous operations: L of {@code putAsync}, {@code getAsync} or
 * {@code removeAsync}, then a wait for them; a barrier after each phase. It prints the same line of
 * JSON, with {@code "impl": "hazelcast"}.
 *
 * <p>What differs from the kit's table, and why the comparison is still fair: Hazelcast chooses the
 * member that owns a key by hashing it, so an origin cannot name a target. N-N and 1-N spread the
 * keys over every member, as the kit's {@code k % p} does; for N-1 every key carries one partition
 * key ({@link PartitionAwareKey}), so all of them live on one member, though not necessarily member
 * 0. A key's n values are one {@code int[]}: each request of the benchmark has a key of its own, so
 * appending and replacing do the same. Hazelcast has no collective barrier outside its CP subsystem,
 * so the barrier is a counter in a map, under the map's lock.
 *
 * <p>{@code --listen PORT}: the member binds that port, and its {@code --peers} entry is the address
 * the others reach it by (a proxy in front of it, which {@code ./lab bench dht --latency} puts there):
 * Hazelcast's public address, as for a member behind NAT. Without it, the member binds its entry.
 *
 * <p>Exit 0 when every value was stored, found and deleted exactly once; 1 when not; 2 for bad
 * arguments; 3 when the cluster did not form.
 */
public final class HazelcastMain {
    private HazelcastMain() {
    }

    public static void main(String[] args) throws Exception {
        int id, values, n, blocking, listen;
        String peers, pattern;
        try {
            Args a = new Args(args, Set.of("--id", "--peers", "--listen", "--pattern", "--values", "--n", "--L"), Set.of());
            id = a.integer("--id", -1);
            peers = a.text("--peers", null);
            pattern = a.text("--pattern", "n-n");
            values = a.integer("--values", 10_000);
            n = a.integer("--n", 1);
            blocking = a.integer("--L", 100);
            listen = a.integer("--listen", 0);
            if (peers == null || id < 0 || id >= peers.split(",").length
                    || !List.of("n-n", "1-n", "n-1").contains(pattern) || n < 1 || blocking < 1 || values < 0) {
                throw new IllegalArgumentException("need --id (0..p-1), --peers host:port,..., --pattern n-n|1-n|n-1, "
                        + "--n >= 1, --L >= 1, --values >= 0");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("hazelcast: " + e.getMessage());
            System.exit(2);
            return;
        }
        String[] members = peers.split(",");
        HazelcastInstance hz = Hazelcast.newHazelcastInstance(config(peers, members, id, listen));
        int exit;
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (hz.getCluster().getMembers().size() < members.length && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            if (hz.getCluster().getMembers().size() < members.length) {
                System.err.println("hazelcast member " + id + ": only " + hz.getCluster().getMembers().size() + " of "
                        + members.length + " members joined in 60 s: start every process of --peers");
                exit = 3;
            } else {
                System.err.println("hazelcast member " + id + ": connected to all " + members.length + " processes");
                Run run = new Run(hz, id, members.length, pattern, values, n, blocking);
                System.out.println(run.run());
                System.out.flush();
                exit = run.wrong == 0 ? 0 : 1;
            }
        } finally {
            hz.shutdown();   // gracefully: a member still reading the last barrier keeps its partitions
        }
        System.exit(exit);
    }

    /** Member {@code id}'s configuration: a cluster of exactly the {@code --peers}, joined over TCP, one copy per value. */
    private static Config config(String peers, String[] members, int id, int listen) {
        String[] mine = members[id].split(":");
        Config config = new Config();
        config.setClusterName("handofflab-dht-" + peers.hashCode());    // runs side by side do not merge
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        // The kit's table keeps one copy of each value, at its target: the baseline does the same work
        // (an IMap keeps one synchronous backup by default, a second write per insert and delete).
        config.getMapConfig("table").setBackupCount(0).setAsyncBackupCount(0);
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(listen > 0 ? listen : Integer.parseInt(mine[1])).setPortAutoIncrement(false);
        if (listen > 0) {   // the others reach this member through its --peers entry, not the port it binds
            network.setPublicAddress(members[id]);
        }
        network.getInterfaces().setEnabled(true).addInterface(mine[0]);
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(Arrays.asList(members));
        return config;
    }

    /** The benchmark of one member: DhtMain's three phases, on an IMap. */
    static final class Run {
        final HazelcastInstance hz;
        final IMap<Object, int[]> map;
        final IMap<String, Long> barrier;
        final int me, p, values, n, blocking;
        final String pattern;
        long wrong;
        String firstWrong = "";
        int barriers;

        Run(HazelcastInstance hz, int me, int p, String pattern, int values, int n, int blocking) {
            this.hz = hz;
            this.map = hz.getMap("table");
            this.barrier = hz.getMap("barrier");
            this.me = me;
            this.p = p;
            this.pattern = pattern;
            this.values = values;
            this.n = n;
            this.blocking = blocking;
        }

        Object key(int j) {
            long k = (long) me * 1_000_000_000L + j;
            return pattern.equals("n-1") ? new PartitionAwareKey<>(k, "the one target") : k;
        }

        int[] valuesOf(int j, int count) {
            int[] v = new int[count * 2];
            for (int i = 0; i < count; i++) {
                v[2 * i] = me;
                v[2 * i + 1] = j * n + i;
            }
            return v;
        }

        /** Every member increments a counter, then waits until all p have, for this barrier. */
        void flush() throws InterruptedException {
            barriers++;
            barrier.lock("count");
            try {
                barrier.put("count", barrier.getOrDefault("count", 0L) + 1);
            } finally {
                barrier.unlock("count");
            }
            while (barrier.getOrDefault("count", 0L) < (long) p * barriers) {
                Thread.sleep(1);
            }
        }

        String run() throws Exception {
            boolean originates = !pattern.equals("1-n") || me == 0;
            int requests = originates ? (values + n - 1) / n : 0;
            long[] init = new long[3], completion = new long[3], barrierTime = new long[3];
            for (int phase = 0; phase < 3; phase++) {
                long t0 = System.nanoTime(), initiating = 0, waiting = 0;
                List<CompletableFuture<int[]>> batch = new ArrayList<>(blocking), all = new ArrayList<>(requests);
                for (int j = 0; j < requests; j++) {
                    int count = Math.min(n, values - j * n);
                    long s = System.nanoTime();
                    CompletableFuture<int[]> f = (phase == 0 ? map.putAsync(key(j), valuesOf(j, count))
                            : phase == 1 ? map.getAsync(key(j)) : map.removeAsync(key(j))).toCompletableFuture();
                    initiating += System.nanoTime() - s;
                    batch.add(f);
                    all.add(f);
                    if (batch.size() == blocking || j == requests - 1) {
                        s = System.nanoTime();
                        CompletableFuture.allOf(batch.toArray(new CompletableFuture[0])).join();
                        waiting += System.nanoTime() - s;
                        batch.clear();
                    }
                }
                flush();
                barrierTime[phase] = System.nanoTime() - t0;
                init[phase] = initiating;
                completion[phase] = initiating + waiting;
                for (int j = 0; j < all.size(); j++) {
                    int[] got = all.get(j).join(), want = valuesOf(j, Math.min(n, values - j * n));
                    // an insert finds nothing there before it (each key is its own); a find and a delete return it
                    if (phase == 0 ? got != null : !Arrays.equals(got, want)) {
                        mark((phase == 0 ? "insert" : phase == 1 ? "find" : "delete") + " of key " + key(j)
                                + (phase == 0 ? " found a value already there" : " returned other values than inserted"));
                    }
                }
            }
            int left = map.size();    // every member's deletes are done: the barrier says so
            flush();                  // nobody leaves (and takes partitions away) before all have looked
            if (left != 0 && me == 0) {
                mark(left + " values left in the map after every delete");
            }
            int total = originates ? values : 0;
            return String.format(Locale.ROOT, "{\"id\": %d, \"p\": %d, \"impl\": \"hazelcast\", \"q\": 0, \"pattern\": \"%s\", "
                            + "\"values\": %d, \"n\": %d, \"L\": %d, \"requests\": %d, \"wrong\": %d, \"first_wrong\": \"%s\", "
                            + "\"init_us_per_value\": [%s], \"completion_us_per_value\": [%s], \"barrier_us_per_value\": [%s], "
                            + "\"service_waiting_share\": 0.0}",
                    me, p, pattern, total, n, blocking, requests, wrong, firstWrong.replace("\"", "'"),
                    perValue(init, total, 3), perValue(completion, total, 3), perValue(barrierTime, total, 3));
        }

        void mark(String what) {
            wrong++;
            if (firstWrong.isEmpty()) {
                firstWrong = what;
            }
        }

    }
}
