package io.actiongate.loadtest.parts;

import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * A fixed arrival schedule: action {@code i} is due at {@code start + i / rate}, whatever happened to the actions
 * before it. Latency is taken from that <em>scheduled</em> time, not from the moment the sender got round to
 * sending: a sender that falls behind (a slow {@code send()}, a descheduled thread) then still counts the time the
 * action waited to be sent, instead of silently lowering the offered load and hiding the queueing it caused
 * (coordinated omission). A late sender never skips an action; it sends the overdue ones at once to catch up.
 */
public final class OpenLoopSchedule {

    /** The time source and the way to wait for it; {@link #SYSTEM} in the benchmark, a fake in the tests. */
    public interface Clock {
        long nanoTime();

        /** Returns at or after {@code deadline} (a {@link #nanoTime()} value); at once when it has passed. */
        void sleepUntil(long deadline) throws InterruptedException;
    }

    public static final Clock SYSTEM = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void sleepUntil(long deadline) throws InterruptedException {
            long left;
            while ((left = deadline - System.nanoTime()) > 0) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                // park most of the wait, spin the last ~0.2 ms: parkNanos overshoots by tens of microseconds
                if (left > 200_000) {
                    java.util.concurrent.locks.LockSupport.parkNanos(left - 100_000);
                } else {
                    Thread.onSpinWait();
                }
            }
        }
    };

    /** What a run of the schedule sent: per action its scheduled and its actual send time (nanoTime). */
    public record Sent(long[] scheduledAt, long[] sentAt) {

        public int size() {
            return sentAt.length;
        }

        /** Arrivals per second actually achieved: (n - 1) intervals over the first to the last send. */
        public double achievedRate() {
            int n = sentAt.length;
            if (n < 2 || sentAt[n - 1] == sentAt[0]) {
                return Double.NaN;
            }
            return (n - 1) * 1e9 / (sentAt[n - 1] - sentAt[0]);
        }

        /** The largest delay of a send behind its scheduled time, in nanoseconds. */
        public long maxLagNanos() {
            long max = 0;
            for (int i = 0; i < sentAt.length; i++) {
                max = Math.max(max, sentAt[i] - scheduledAt[i]);
            }
            return max;
        }

        /**
         * Latency of each completed action from its scheduled send time to {@code doneAt[i]} (0 = not completed),
         * sorted ascending, in nanoseconds.
         */
        public long[] sortedLatencies(long[] doneAt) {
            if (doneAt.length != scheduledAt.length) {
                throw new IllegalArgumentException(doneAt.length + " completion times for " + scheduledAt.length
                        + " scheduled actions");
            }
            return Arrays.stream(latencies(scheduledAt, doneAt)).filter(l -> l >= 0).sorted().toArray();
        }
    }

    private final double ratePerSecond;
    private final Clock clock;

    public OpenLoopSchedule(double ratePerSecond, Clock clock) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("arrival rate must be positive, got " + ratePerSecond);
        }
        this.ratePerSecond = ratePerSecond;
        this.clock = clock;
    }

    public double ratePerSecond() {
        return ratePerSecond;
    }

    /** When action {@code i} is due, {@code start} being action 0's time. */
    public long scheduledAt(long start, int i) {
        return start + Math.round(i * 1e9 / ratePerSecond);
    }

    /**
     * Sends actions 0..n-1 on the schedule, starting now: waits for each one's due time unless it has passed, notes
     * the actual time and calls {@code send} with its index.
     */
    public Sent run(int n, IntConsumer send) throws InterruptedException {
        long[] scheduled = new long[n];
        long[] sent = new long[n];
        long start = clock.nanoTime();
        for (int i = 0; i < n; i++) {
            scheduled[i] = scheduledAt(start, i);
            clock.sleepUntil(scheduled[i]);
            sent[i] = clock.nanoTime();
            send.accept(i);
        }
        return new Sent(scheduled, sent);
    }

    /** Per action: {@code doneAt[i] - from[i]}, or -1 when it did not complete ({@code doneAt[i] == 0}). */
    public static long[] latencies(long[] from, long[] doneAt) {
        long[] out = new long[from.length];
        for (int i = 0; i < from.length; i++) {
            out[i] = doneAt[i] == 0 ? -1 : doneAt[i] - from[i];
        }
        return out;
    }
}
