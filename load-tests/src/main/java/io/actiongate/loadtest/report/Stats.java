package io.actiongate.loadtest.report;

import java.util.Arrays;
import java.util.List;

/** Order statistics of measured values. */
public final class Stats {

    private Stats() {
    }

    /** The median; for an even count, the lower middle value (a measured value, never an average of two). */
    public static long median(List<Long> values) {
        return percentile(values, 50);
    }

    /** Nearest-rank percentile ({@code p} in 0..100) of {@code values}, which must not be empty. */
    public static long percentile(List<Long> values, double p) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        long[] sorted = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return percentileOfSorted(sorted, p);
    }

    public static long percentileOfSorted(long[] sorted, double p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
