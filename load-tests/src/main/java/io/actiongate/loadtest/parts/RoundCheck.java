package io.actiongate.loadtest.parts;

import java.util.Collection;
import java.util.List;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler that reports, for every round of a {@link TopologyBenchmarks} row, how many of its actions ended
 * in the row's expected state, as the round's secondary result {@value #LABEL} (lowest over the rounds when JMH
 * aggregates). Counting happens in the rows' untimed tear-down; this only carries the count out of the forked JVM
 * with the round's time. {@link TopologyBench} adds it; in a plain JMH run, {@code -prof} adds it by class name.
 * Without it a round whose actions fell short throws, so a wrong row fails instead of printing a time.
 */
public final class RoundCheck implements InternalProfiler {

    /** The secondary result's label. */
    public static final String LABEL = "ok";

    private static volatile int verified = -1;
    private static volatile boolean reporting;

    /** Called by a row's tear-down with its round's count of actions in the expected state. */
    static void record(String row, int ok, int actions) {
        verified = ok;
        if (!reporting && ok != actions) {
            throw new IllegalStateException("row " + row + ": " + ok + " of " + actions
                    + " actions ended in the row's expected state, so the round timed other work");
        }
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        verified = -1;
        reporting = true;
    }

    @Override
    public Collection<? extends Result<?>> afterIteration(BenchmarkParams benchmarkParams,
            IterationParams iterationParams, IterationResult result) {
        reporting = false;
        // -1: the round's tear-down never counted, which the runner reads as a failed check
        return List.of(new ScalarResult(LABEL, verified, "actions", AggregationPolicy.MIN));
    }

    @Override
    public String getDescription() {
        return "actions of each round that ended in the row's expected state (actiongate part topology)";
    }
}
