package handofflab.handoffs;

/**
 * A kit handoff whose steps inside a call a recorded run can log (the parallel hash table's slot
 * accesses): {@link RecordedHandoff} connects it to its log before any thread starts.
 */
interface Stepped {
    void recordSteps(StepLog log);
}
