package handofflab.dht;

/**
 * The paper's threaded level: "simply wraps Pthread mutexes around every operation at the serial
 * level". One lock for the whole table, so the service thread and the process's own user thread
 * (a local insert) never meet inside it.
 */
public final class ThreadedTable implements LocalTable {
    private final SerialTable table;  // guarded by this

    public ThreadedTable(SerialTable table) {
        this.table = table;
    }

    @Override
    public synchronized int insert(long key, int n, int[] in) {
        return table.insert(key, n, in);
    }

    @Override
    public synchronized int find(long key, int n, int[] out) {
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

    public int width() {
        return table.width();  // final after construction
    }
}
