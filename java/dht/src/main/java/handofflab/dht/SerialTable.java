package handofflab.dht;

/**
 * The paper's serial level (Malard & Stewart, Sec. 2.3): "a simple dynamic hash table with open
 * addressing and fixed bucket size". A key may have many values; each value is a sequence of
 * {@code width} ints (the paper's "sequences of atomic values of the same type and length").
 *
 * <p>Each slot holds one key and a bucket of at most {@code bucket} values. A key with more values
 * than one bucket holds takes further slots along its probe sequence (linear probing). The table
 * doubles its slots when three quarters are taken, up to {@code maxSlots}; at that limit an insert
 * stores what fits and reports how many values it stored, as {@code hash_insert_x} does through
 * its in/out argument {@code n}.
 *
 * <p>Not thread-safe: {@link ThreadedTable} is the paper's threaded level, this class behind one lock.
 */
public final class SerialTable {
    private static final byte EMPTY = 0, USED = 1, TOMBSTONE = 2;  // a tombstone keeps probe sequences unbroken

    private final int width, bucket, maxSlots;
    private byte[] state;
    private long[] keys;
    private int[] counts;      // values in each slot's bucket
    private int[] values;      // slot s holds its values at [s * bucket * width, (s + 1) * bucket * width)
    private int taken;         // slots USED or TOMBSTONE: what makes probe sequences long
    private long size;         // values stored

    public SerialTable(int width, int bucket, int initialSlots, int maxSlots) {
        if (width < 1 || bucket < 1 || initialSlots < 1 || maxSlots < initialSlots) {
            throw new IllegalArgumentException("need width >= 1, bucket >= 1 and 1 <= initialSlots <= maxSlots; got width "
                    + width + ", bucket " + bucket + ", slots " + initialSlots + ".." + maxSlots);
        }
        this.width = width;
        this.bucket = bucket;
        this.maxSlots = Integer.highestOneBit(maxSlots);  // slots are a power of two, for the probe's mask
        allocate(Math.min(powerOfTwoAtLeast(initialSlots), this.maxSlots));
    }

    public int width() {
        return width;
    }

    /** Values stored, over all keys. */
    public long size() {
        return size;
    }

    /** Stores the first {@code n} values of {@code in} under {@code key}; returns how many it stored (fewer when full). */
    public int insert(long key, int n, int[] in) {
        checkArgs(n, in);
        int stored = 0;
        while (stored < n) {
            int s = slotWithRoom(key);
            if (s < 0) {
                break;  // the table is at maxSlots and every slot is taken
            }
            int room = Math.min(bucket - counts[s], n - stored);
            System.arraycopy(in, stored * width, values, (s * bucket + counts[s]) * width, room * width);
            counts[s] += room;
            stored += room;
            size += room;
        }
        return stored;
    }

    /** Copies up to {@code n} of {@code key}'s values into {@code out}; returns how many. */
    public int find(long key, int n, int[] out) {
        return collect(key, n, out, false);
    }

    /** Removes up to {@code n} of {@code key}'s values, copying them into {@code out}; returns how many. */
    public int delete(long key, int n, int[] out) {
        return collect(key, n, out, true);
    }

    private int collect(long key, int n, int[] out, boolean remove) {
        checkArgs(n, out);
        int got = 0;
        int mask = state.length - 1;
        for (int i = 0, s = home(key); i < state.length && state[s] != EMPTY && got < n; i++, s = (s + 1) & mask) {
            if (state[s] != USED || keys[s] != key) {
                continue;
            }
            int take = Math.min(counts[s], n - got);
            int from = (s * bucket + counts[s] - take) * width;   // from the bucket's end: no hole to close
            System.arraycopy(values, from, out, got * width, take * width);
            got += take;
            if (remove) {
                counts[s] -= take;
                size -= take;
                if (counts[s] == 0) {
                    state[s] = TOMBSTONE;
                }
            }
        }
        return got;
    }

    /** A slot of {@code key} with room in its bucket, or a new one for it; -1 when none can be had. */
    private int slotWithRoom(long key) {
        while (true) {
            int mask = state.length - 1, free = -1;
            for (int i = 0, s = home(key); i < state.length; i++, s = (s + 1) & mask) {
                if (state[s] == USED && keys[s] == key && counts[s] < bucket) {
                    return s;
                }
                if (state[s] != USED && free < 0) {
                    free = s;  // the first reusable slot; go on looking for a bucket of this key with room
                }
                if (state[s] == EMPTY) {
                    break;
                }
            }
            boolean roomy = free >= 0 && (state[free] == TOMBSTONE || (taken + 1) * 4L <= state.length * 3L);
            if (roomy || !grow()) {   // at maxSlots the table fills beyond three quarters, to its last slot
                return free < 0 ? -1 : claim(free, key);
            }
        }
    }

    private int claim(int s, long key) {
        if (state[s] == EMPTY) {
            taken++;
        }
        state[s] = USED;
        keys[s] = key;
        counts[s] = 0;
        return s;
    }

    /** Doubles the slots (and drops the tombstones), if maxSlots allows; false when it does not. */
    private boolean grow() {
        if (state.length * 2 > maxSlots) {
            return false;
        }
        byte[] oldState = state;
        long[] oldKeys = keys;
        int[] oldCounts = counts, oldValues = values;
        allocate(state.length * 2);
        for (int s = 0; s < oldState.length; s++) {
            if (oldState[s] == USED) {
                int t = home(oldKeys[s]), mask = state.length - 1;
                while (state[t] != EMPTY) {
                    t = (t + 1) & mask;
                }
                state[t] = USED;
                keys[t] = oldKeys[s];
                counts[t] = oldCounts[s];
                System.arraycopy(oldValues, s * bucket * width, values, t * bucket * width, oldCounts[s] * width);
                taken++;
            }
        }
        return true;
    }

    private static int powerOfTwoAtLeast(int n) {
        int p = Integer.highestOneBit(n);
        return p < n ? p << 1 : p;
    }

    private void allocate(int slots) {
        state = new byte[slots];
        keys = new long[state.length];
        counts = new int[state.length];
        values = new int[state.length * bucket * width];
        taken = 0;
    }

    private int home(long key) {
        long h = key * 0x9E3779B97F4A7C15L;  // Fibonacci hashing: consecutive keys spread over the slots
        return (int) (h >>> 33) & (state.length - 1);
    }

    private void checkArgs(int n, int[] array) {
        if (n < 0 || (long) n * width > array.length) {
            throw new IllegalArgumentException("a request of " + n + " values of width " + width + " needs "
                    + (long) n * width + " ints; the array holds " + array.length);
        }
    }

    @Override
    public String toString() {
        return "SerialTable[" + size + " values in " + state.length + " slots, bucket " + bucket + ", width " + width + "]";
    }
}
