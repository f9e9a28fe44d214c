package handofflab.dht;

/** What a request asks of its target: the paper's HASH_Insert, HASH_Find and HASH_Delete, and the barrier of HASH_Flush. */
public enum Op {
    INSERT, FIND, DELETE, BARRIER;

    /** Whether the reply carries values back to the origin (the paper: "an output argument" of find and delete). */
    boolean returnsValues() {
        return this == FIND || this == DELETE;
    }
}
