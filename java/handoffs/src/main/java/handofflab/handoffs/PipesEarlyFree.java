package handofflab.handoffs;

/** A worker marks itself free before it has taken its connection. Harmless with pipes, which queue (specs/PipesEarlyFree.cfg passes). */
public final class PipesEarlyFree<T> extends PipeHandoff<T> {

    public PipesEarlyFree(int workers) {
        super(workers, true, true, true);
    }
}
