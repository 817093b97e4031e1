package io.actiongate.loadtest.report;

import java.util.Map;

/**
 * One row of the report, whatever part measured it: how many actions it ran and completed, its throughput, the
 * latency per action when the part measures one (null otherwise), the id of the row its ratio is taken against
 * (null for a baseline or a row without one), and the part's own figures ({@code notes}, e.g. records per action,
 * heap MiB, durability settings), printed and written to the JSON report as they are.
 */
public record BenchRow(String part, String id, String what, int actions, int completed, double throughput,
                Latency latency, String ratioTo, Map<String, String> notes) {

    public BenchRow {
        notes = Map.copyOf(notes);
    }

    /** Every action this row ran reached the state the row claims to measure. */
    public boolean complete() {
        return completed == actions;
    }

    /** Per-action latency percentiles and maximum, in milliseconds. */
    public record Latency(double p50, double p95, double p99, double max) {

        /** From latencies in nanoseconds sorted ascending; null when there are none. */
        public static Latency ofSortedNanos(long[] sorted) {
            if (sorted.length == 0) {
                return null;
            }
            return new Latency(Stats.percentileOfSorted(sorted, 50) / 1e6, Stats.percentileOfSorted(sorted, 95) / 1e6,
                    Stats.percentileOfSorted(sorted, 99) / 1e6, sorted[sorted.length - 1] / 1e6);
        }
    }
}
