package handofflab.dht;

/**
 * A process's local table as the service thread and the process's own user thread share it: the
 * paper's threaded level ({@link ThreadedTable}), or a buggy variant of it that the kit's model
 * checker must catch (the catalog, specs/catalog.toml, lists each with its verdict).
 */
public interface LocalTable {
    int insert(long key, int n, int[] in);

    int find(long key, int n, int[] out);

    int delete(long key, int n, int[] out);

    long size();

    /** The class named {@code kind} in this package, wrapped around {@code table}. */
    static LocalTable create(String kind, SerialTable table) {
        try {
            return (LocalTable) Class.forName(LocalTable.class.getPackageName() + "." + kind)
                    .getDeclaredConstructor(SerialTable.class).newInstance(table);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("no local table named '" + kind + "' in "
                    + LocalTable.class.getPackageName(), e);
        }
    }
}
