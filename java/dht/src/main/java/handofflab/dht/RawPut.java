package handofflab.dht;

import java.io.IOException;
import java.util.Arrays;

/**
 * The benchmark's baseline, the paper's LAPI_Put: the values go straight from the socket into an array at the
 * address the origin names, and the reply follows. No receive buffer, no service thread, no table: what is left is
 * the transport and one thread handoff to the writer.
 */
final class RawPut {
    /** The array, in ints: each origin owns RAW_INTS / p of it and names where its values go, as LAPI_Put does. */
    static final int RAW_INTS = 1 << 22;
    private final int[] ints;
    private final int width;

    /** Empty unless {@code on}: a target that does not run the baseline holds no array. */
    RawPut(boolean on, int width) {
        this.ints = new int[on ? RAW_INTS : 0];
        this.width = width;
    }

    /**
     * An INSERT is the raw put; a FIND is the raw get that checks the run afterwards (untimed): it returns what that
     * address holds. False: an address outside the array, refused, and the connection reads no more.
     */
    boolean serve(OriginConnection c, Op op, long id, long address, int n) throws IOException {
        int count = n * width;
        if (address < 0 || address > ints.length - count) {
            c.reply(() -> c.error(id, "a raw " + (op == Op.INSERT ? "put" : "get") + " of " + count + " ints at address "
                    + address + ": this target's array holds " + ints.length));
            return false;
        }
        int at = (int) address;
        if (op == Op.INSERT) {
            Wire.readInts(c.in, ints, at, count);  // this connection's own thread: the origin owns this part of the array
            c.reply(() -> {
                c.out.writeLong(id);
                c.out.writeByte(Wire.OK);
                c.out.writeInt(n);
            });
        } else {
            int[] held = Arrays.copyOfRange(ints, at, at + count);
            c.reply(() -> {
                c.out.writeLong(id);
                c.out.writeByte(Wire.OK);
                c.out.writeInt(n);
                Wire.writeInts(c.out, held, count);
            });
        }
        return true;
    }
}
