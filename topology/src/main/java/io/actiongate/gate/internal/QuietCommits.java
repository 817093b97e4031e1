package io.actiongate.gate.internal;

import java.time.Duration;

import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * When a stream thread commits at once instead of at its next {@code commit.interval.ms}: after a record that arrived
 * alone. A read-only action waits for two of the gate's commits (its reservation, then its receipt), so at light load
 * the commit interval, not the work, makes most of its latency; under load the interval is what batches many records
 * into one transaction, and committing sooner would cost throughput.
 *
 * <p>A record read from a contract topic is <em>quiet</em> when its timestamp is at least {@code gap} after the
 * latest timestamp this stream thread read before it: nothing arrived in between. Each quiet record asks Kafka
 * Streams for a commit ({@link ProcessorContext#commit()}: the thread commits after the records it is processing).
 * A record read back from one of the gate's own hops carries its input's timestamp, so it cannot be told quiet by
 * it: it asks for a commit while the thread's last contract record was quiet. Under load the records are closer
 * than {@code gap}, or come in bursts of more than {@link #BUSY_RECORDS} per {@link #BUSY_WINDOW}; none is quiet
 * then, and only the commit interval commits. Timestamps are the producer's (its clock, or one it set), never the
 * time spent committing, so committing cannot make the next record look quiet.
 *
 * <p>What a producer's timestamps can do to it is bounded: a timestamp more than {@link #WINDOW} away from the
 * gate's wall clock (a backlog read after a restart, a skewed or forged clock) is never quiet and does not move the
 * latest timestamp; within the window, timestamps advance with the wall clock, so quiet records arrive at most about
 * once per {@code gap}; and the thread asks at most once per a quarter of {@code gap} of wall-clock time (rounded up
 * to whole milliseconds). One instance serves every processor of a topology; its state is per stream thread.
 */
public final class QuietCommits {

    /** How far from the gate's wall clock a record's timestamp may be and still count. */
    public static final Duration WINDOW = Duration.ofSeconds(1);

    /**
     * More records than this read by a stream thread within {@link #BUSY_WINDOW} make it busy: none of its records
     * is quiet then. In a closed loop (the executor's outcomes, a host that sends its next calls when receipts
     * arrive) records come in bursts released by the gate's own commits, and the first record of each burst would
     * otherwise look quiet.
     */
    public static final int BUSY_RECORDS = 20;

    /** The window {@link #BUSY_RECORDS} counts in: the gate's default commit interval. */
    public static final Duration BUSY_WINDOW = Duration.ofMillis(50);

    /** Never asks: only the commit interval commits. */
    public static final QuietCommits OFF = new QuietCommits(0);

    private final long gapMs;
    private final long spacingMs;
    private final ThreadLocal<State> states = ThreadLocal.withInitial(State::new);

    private static final class State {
        long latest = Long.MIN_VALUE;
        boolean quiet;
        long askedAt = Long.MIN_VALUE;
        long windowStart = Long.MIN_VALUE;
        int inWindow;
        int inLastWindow;

        /** Counts one record read at {@code now}; whether the thread read more than BUSY_RECORDS lately. */
        boolean busy(long now) {
            if (windowStart == Long.MIN_VALUE || now - windowStart >= BUSY_WINDOW.toMillis()) {
                inLastWindow = windowStart != Long.MIN_VALUE && now - windowStart < 2 * BUSY_WINDOW.toMillis()
                        ? inWindow : 0;
                inWindow = 0;
                windowStart = now;
            }
            inWindow++;
            return inWindow + inLastWindow > BUSY_RECORDS;
        }
    }

    private QuietCommits(long gapMs) {
        this.gapMs = gapMs;
        this.spacingMs = Math.max(1, (gapMs + 3) / 4); // a quarter of the gap, rounded up
    }

    /** Quiet after {@code gap} without a record; {@link #OFF} when {@code gap} is zero. */
    public static QuietCommits after(Duration gap) {
        return gap.isZero() ? OFF : new QuietCommits(gap.toMillis());
    }

    /** A record stamped {@code timestampMs} read from a contract topic (proposals, decisions, outcomes, ...). */
    public void input(ProcessorContext<?, ?> context, long timestampMs) {
        if (gapMs == 0) {
            return;
        }
        State state = states.get();
        long now = context.currentSystemTimeMs();
        boolean busy = state.busy(now);
        if (Math.abs(timestampMs - now) > WINDOW.toMillis()) {
            state.quiet = false;
            return;
        }
        state.quiet = !busy && (state.latest == Long.MIN_VALUE || timestampMs - state.latest >= gapMs);
        state.latest = Math.max(state.latest, timestampMs);
        if (state.quiet) {
            ask(context, state, now);
        }
    }

    /** A record read back from one of the gate's hops. */
    public void hop(ProcessorContext<?, ?> context) {
        if (gapMs == 0) {
            return;
        }
        State state = states.get();
        long now = context.currentSystemTimeMs();
        if (!state.busy(now) && state.quiet) {
            ask(context, state, now);
        }
    }

    private void ask(ProcessorContext<?, ?> context, State state, long now) {
        if (state.askedAt == Long.MIN_VALUE || now - state.askedAt >= spacingMs) {
            state.askedAt = now;
            context.commit();
        }
    }
}
