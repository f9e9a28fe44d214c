package handofflab.dht;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * What every process of one distributed table must agree on, and what is its own. The paper's
 * parameters by their letters: p processes ({@link #peers}), the request size limit n
 * ({@link #maxRequest}, the size of a receive buffer), and q, the depth of the target's completion
 * queue ({@link #completionQueue}).
 */
public final class DhtConfig {
    public final int id;                          // this process: 0 .. p-1
    public final List<InetSocketAddress> peers;   // every process's target, in id order (p = peers.size())
    public final int width;                       // ints per value
    public final int bucket;                      // values per slot of the serial table
    public final int initialSlots, maxSlots;      // of each process's serial table
    public final int maxRequest;                  // values per request: a receive buffer holds this many
    public final int buffers;                     // receive buffers of a target (its header handler's pool)
    public final int completionQueue;             // q: replies in flight before the service thread waits for the oldest
    public final double connectSeconds;           // how long an origin keeps trying to reach a target that is starting
    public final boolean rawPut;                  // the benchmark's baseline: inserts go straight into an array (see Target)
    public final String completions;              // the completion queue's class (see CompletionQueue.create)

    public DhtConfig(int id, List<InetSocketAddress> peers, int width, int bucket, int initialSlots, int maxSlots,
                     int maxRequest, int buffers, int completionQueue, double connectSeconds) {
        this(id, peers, width, bucket, initialSlots, maxSlots, maxRequest, buffers, completionQueue, connectSeconds, false);
    }

    public DhtConfig(int id, List<InetSocketAddress> peers, int width, int bucket, int initialSlots, int maxSlots,
                     int maxRequest, int buffers, int completionQueue, double connectSeconds, boolean rawPut) {
        this(id, peers, width, bucket, initialSlots, maxSlots, maxRequest, buffers, completionQueue, connectSeconds, rawPut,
                "DepthQueue");   // by name: a student copy of the kit leaves DepthQueue out (the DHT lab's answer)
    }

    private DhtConfig(int id, List<InetSocketAddress> peers, int width, int bucket, int initialSlots, int maxSlots,
                      int maxRequest, int buffers, int completionQueue, double connectSeconds, boolean rawPut,
                      String completions) {
        if (peers.isEmpty() || id < 0 || id >= peers.size()) {
            throw new IllegalArgumentException("process id " + id + " is not one of the " + peers.size() + " peers (0.."
                    + (peers.size() - 1) + ")");
        }
        if (maxRequest < 1 || completionQueue < 0 || buffers < completionQueue + 1) {
            throw new IllegalArgumentException("need maxRequest >= 1, q >= 0 and buffers >= q + 1 (the service thread "
                    + "holds up to q buffers whose replies are in flight, and the header handler needs one more to read "
                    + "into); got maxRequest " + maxRequest + ", q " + completionQueue + ", buffers " + buffers);
        }
        this.id = id;
        this.peers = List.copyOf(peers);
        this.width = width;
        this.bucket = bucket;
        this.initialSlots = initialSlots;
        this.maxSlots = maxSlots;
        this.maxRequest = maxRequest;
        this.buffers = buffers;
        this.completionQueue = completionQueue;
        this.connectSeconds = connectSeconds;
        this.rawPut = rawPut;
        this.completions = completions;
    }

    /** The same settings for process {@code id} of {@code peers}. */
    public DhtConfig with(int id, List<InetSocketAddress> peers) {
        return new DhtConfig(id, peers, width, bucket, initialSlots, maxSlots, maxRequest, buffers, completionQueue,
                connectSeconds, rawPut, completions);
    }

    /** The same settings with another completion queue: a class of handofflab.dht by its simple name, or any by its
     *  full name (a lab's submission). */
    public DhtConfig withCompletions(String completions) {
        CompletionQueue.create(completions, completionQueue, b -> { });  // a bad name fails here, before any thread starts
        return new DhtConfig(id, peers, width, bucket, initialSlots, maxSlots, maxRequest, buffers, completionQueue,
                connectSeconds, rawPut, completions);
    }

    public int processes() {
        return peers.size();
    }

    /** "host:port,host:port,..." as a user gives it; a clear error for anything else. */
    public static List<InetSocketAddress> parsePeers(String list) {
        List<InetSocketAddress> peers = new ArrayList<>();
        for (String item : list.split(",")) {
            int colon = item.lastIndexOf(':');
            try {
                if (colon <= 0) {
                    throw new NumberFormatException();
                }
                int port = Integer.parseInt(item.substring(colon + 1).trim());
                if (port < 1 || port > 65535) {
                    throw new NumberFormatException();
                }
                peers.add(InetSocketAddress.createUnresolved(item.substring(0, colon).trim(), port));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + item + "' is not host:port (a port from 1 to 65535); give every "
                        + "process as host:port, comma-separated, in the same order to every process");
            }
        }
        return peers;
    }
}
