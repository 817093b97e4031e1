package io.actiongate.gate;

import java.time.Duration;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * How long one consumer's blocking poll waits: as asked while records come, up to {@code idlePoll} once its polls
 * have returned nothing for {@link #IDLE_AFTER_NANOS}. A poll returns as soon as records arrive, so the first record
 * after a quiet spell is not kept waiting; what waits longer is only what the polling thread does between polls. A
 * poll asked to return at once (zero) stays so. Used on the consumer's poll thread only
 * ({@link GroupCommitConsumer}, {@link GateClientSupplier#getGlobalConsumer}).
 */
final class IdlePolls {

    /** How long polls must have returned nothing before one waits {@code idlePoll}. */
    static final long IDLE_AFTER_NANOS = 1_000_000_000L;

    private final Duration idlePoll;
    private final LongSupplier nanoTime;
    /** When a poll last returned records (or this was made). */
    private long lastRecords;

    IdlePolls(Duration idlePoll, LongSupplier nanoTime) {
        this.idlePoll = idlePoll;
        this.nanoTime = nanoTime;
        this.lastRecords = nanoTime.getAsLong();
    }

    /** Whether a poll asked to wait {@code timeout} may wait {@link #idlePoll()} instead. */
    boolean idle(Duration timeout) {
        return !timeout.isZero() && idlePoll.compareTo(timeout) > 0
                && nanoTime.getAsLong() - lastRecords >= IDLE_AFTER_NANOS;
    }

    Duration idlePoll() {
        return idlePoll;
    }

    /** A poll returned {@code records}. */
    void polled(ConsumerRecords<?, ?> records) {
        if (!records.isEmpty()) {
            lastRecords = nanoTime.getAsLong();
        }
    }
}
