package handofflab.handoffs;

/**
 * The real {@link PipeHandoff}, counting the acceptor's scan of the worker-status
 * array, for the notebook {@code notebooks/pipes_scan.py}: Roussev &amp; Wu (ICN 2001,
 * Sec. 4.2, Theorem 3) bound the scan by 1/α probes, α the fraction of free workers.
 * Only the acceptor calls {@link #put}, so the counters need no lock. The put code is
 * the parent's, unchanged; this class is not in the catalog.
 */
public final class ScanCountingPipes<T> extends PipeHandoff<T> {
    private int probes;
    private int freeAtStart;

    public ScanCountingPipes(int workers) {
        super(workers);
    }

    @Override
    public void put(T item) throws InterruptedException {
        probes = 0;
        freeAtStart = freeWorkers();
        super.put(item);
    }

    @Override
    boolean claim(int i, T item) {
        probes++;
        return super.claim(i, item);
    }

    /** Probes of the last put's scan, rescans after waiting for a free worker included. */
    public int lastProbes() {
        return probes;
    }

    /** Workers free when the last put began: α = this / workers. */
    public int lastFreeAtStart() {
        return freeAtStart;
    }

    public int workerCount() {
        return workers();
    }
}
