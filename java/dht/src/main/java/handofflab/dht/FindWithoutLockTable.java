package handofflab.dht;

/**
 * BUGGY: the threaded level with its lock around inserts and deletes only, on the reasoning that a
 * find changes nothing. But an insert may double the table: a find that runs meanwhile probes the
 * new, still empty arrays and misses values stored long before. The paper's threaded level wraps
 * the lock around every operation, finds included ({@link ThreadedTable}).
 */
public final class FindWithoutLockTable implements LocalTable {
    private final SerialTable table;

    public FindWithoutLockTable(SerialTable table) {
        this.table = table;
    }

    @Override
    public synchronized int insert(long key, int n, int[] in) {
        return table.insert(key, n, in);
    }

    @Override
    public int find(long key, int n, int[] out) {   // BUG: reads without the lock
        return table.find(key, n, out);
    }

    @Override
    public synchronized int delete(long key, int n, int[] out) {
        return table.delete(key, n, out);
    }

    @Override
    public synchronized long size() {
        return table.size();
    }
}
