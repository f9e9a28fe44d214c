package handofflab.handoffs;

/**
 * Where a kit's handoff logs the steps inside its calls in a recorded run (trace validation): a
 * slot read, written or swapped (the hash table); a worker's status marked, or its channel read (the pipes). Package-private, as {@link Stepped} is: only the kit's own
 * classes log steps, so a submitted class is judged by its calls alone, seen from outside.
 */
interface StepLog {
    /** No log: what a kit class logs to outside a recorded run. */
    StepLog NONE = (kind, slot, item) -> { };

    /** One step of the calling thread on slot {@code slot}: {@code item} is what it read or wrote. */
    void step(String kind, int slot, Object item);
}
