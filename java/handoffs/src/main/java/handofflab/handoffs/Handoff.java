package handofflab.handoffs;

/**
 * How an acceptor thread passes an accepted connection to a worker thread.
 *
 * <p>The contract every implementation must keep, and every checker of the kit
 * verifies: <b>exactly once</b>. Each item {@link #put} is returned by exactly one
 * {@link #take} — never duplicated, never lost, never invented. The TLA+ twin of
 * this contract is {@code specs/Handoff.tla}'s properties NoDuplicate, NoLoss,
 * NoInvented and EventuallyTaken.
 *
 * @param <T> what is handed off: a {@code Socket} in the servers, an id in the checks
 */
public interface Handoff<T> {

    /** Hands {@code item} (never null) to some worker, blocking while there is no room. */
    void put(T item) throws InterruptedException;

    /** Takes the next item handed off, blocking until there is one. */
    T take() throws InterruptedException;
}
