package handofflab.dht;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The bytes between an origin and a target, over one TCP connection per pair. TCP delivers each
 * request once, in order, or the connection breaks; the origin never resends, so a target applies
 * every request it receives exactly once. (The TLA+ spec, specs/DistributedTable.tla, also lets an
 * origin retry, and shows what a target must then do: apply each request id once.)
 *
 * <pre>
 * hello   origin → target   MAGIC, origin id, p, width, maxRequest
 * hello   target → origin   MAGIC, target id, p, width, maxRequest
 * request origin → target   op, request id, key, n, [n × width ints for an insert]
 * reply   target → origin   request id, status, processed, [processed × width ints for find and delete]
 *                           | request id, ERROR, 0, message
 * </pre>
 */
final class Wire {
    static final int MAGIC = 0x44485431;  // "DHT1"
    static final byte OK = 0, FULL = 1, ERROR = 2;

    private Wire() {
    }

    /** Both ends state their settings; a mismatch is the user's to fix, named here. */
    static void hello(DataOutputStream out, DhtConfig c, int id) throws IOException {
        out.writeInt(MAGIC);
        out.writeInt(id);
        out.writeInt(c.processes());
        out.writeInt(c.width);
        out.writeInt(c.maxRequest);
        out.flush();
    }

    /** Reads the other end's hello; returns its id, or throws a DhtException that says what differs. */
    static int readHello(DataInputStream in, DhtConfig c, String who) throws IOException {
        if (in.readInt() != MAGIC) {
            throw new DhtException(who + " does not speak the kit's DHT protocol: is that port another program's?");
        }
        int id = in.readInt(), p = in.readInt(), width = in.readInt(), maxRequest = in.readInt();
        if (p != c.processes() || width != c.width || maxRequest != c.maxRequest) {
            throw new DhtException(who + " was started with " + p + " processes, values of width " + width
                    + " and requests of up to " + maxRequest + " values; this process with " + c.processes() + ", "
                    + c.width + " and " + c.maxRequest + ": start every process with the same --peers and settings");
        }
        return id;
    }

    static void writeInts(DataOutputStream out, int[] a, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            out.writeInt(a[i]);
        }
    }

    static void readInts(DataInputStream in, int[] a, int count) throws IOException {
        readInts(in, a, 0, count);
    }

    static void readInts(DataInputStream in, int[] a, int from, int count) throws IOException {
        for (int i = from; i < from + count; i++) {
            a[i] = in.readInt();
        }
    }
}
