package handofflab.handoffs;

/** The acceptor does not mark the worker it picks as busy. Harmless with pipes, which queue (specs/PipesNoBusy.cfg passes); it only loads one worker more. */
public final class PipesNoBusy<T> extends PipeHandoff<T> {

    public PipesNoBusy(int workers) {
        super(workers, true, false, false);
    }
}
