package io.actiongate.loadtest.baselines;

/**
 * The records one auto-approved read-only action costs the deployment, from its proposal to its outcome: what the
 * benchmark's skeleton row writes ({@code SkeletonBenchTest}) and what the gate writes ({@code GateRecordMixTest}
 * drives the gate's own topology through one read and counts; the gate's {@code RecordsPerActionTest} pins the same
 * figures), so the skeleton cannot drift from the gate's record mix. It lives in the lab: only the benchmark needs it.
 *
 * @param receipts          receipts the gate publishes (one per input record: DISPATCHING, SUCCEEDED)
 * @param reservations      attempt reservations the gate publishes
 * @param actionChangelog   entries of the {@code gate-actions} changelog (proposal, outcome)
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
