package io.actiongate.gate;

/**
 * The records one auto-approved read-only action costs the deployment, from its proposal to its outcome:
 * the one description that the gate's {@code RecordsPerActionTest} pins and the benchmark's skeleton row writes, so
 * the skeleton cannot drift from the gate's record mix.
 *
 * @param receipts          receipts the gate publishes (one per input record: DISPATCHING, SUCCEEDED)
 * @param reservations      attempt reservations the gate publishes
 * @param actionChangelog   entries of the {@link GateStores#ACTIONS} changelog (proposal, outcome)
 * @param timerChangelog    entries of a logged timer store (none: the timer index is in memory)
 * @param outcomes          outcomes the executor publishes
 */
public record ReadOnlyRecordMix(int receipts, int reservations, int actionChangelog, int timerChangelog,
                                int outcomes) {

    /** What the gate writes now (docs/benchmark.md, "Records per read-only action"). */
    public static final ReadOnlyRecordMix CURRENT = new ReadOnlyRecordMix(2, 1, 2, 0, 1);

    /** Every record of one action, the outcome included. */
    public int total() {
        return receipts + reservations + actionChangelog + timerChangelog + outcomes;
    }

    /** The gate's own records (sinks and changelogs), without the executor's outcome. */
    public int gateRecords() {
        return total() - outcomes;
    }
}
