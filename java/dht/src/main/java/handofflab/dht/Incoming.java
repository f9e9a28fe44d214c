package handofflab.dht;

/**
 * One request a header handler has read, waiting for its target's service thread; {@code buffer} is null for a
 * barrier, {@code op} null for the news that an origin's connection ended. (Java 11 here: no record.)
 */
final class Incoming {
    final OriginConnection from;
    final Op op;
    final long id, key;
    final int n;
    final int[] buffer;

    Incoming(OriginConnection from, Op op, long id, long key, int n, int[] buffer) {
        this.from = from;
        this.op = op;
        this.id = id;
        this.key = key;
        this.n = n;
        this.buffer = buffer;
    }
}
