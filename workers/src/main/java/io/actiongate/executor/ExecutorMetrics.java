package io.actiongate.executor;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * The executor's counters. Registered in the {@link PrometheusRegistry} given at start (the /metrics endpoint
 * exposes that registry); the plain getters serve tests and logs. Labels carry provider names and statuses only,
 * never anything from an input.
 */
public final class ExecutorMetrics {

    private final Counter dispatches;
    private final Counter outcomes;
    private final Histogram dispatchLatency;
    private final Counter undecodableCounter;
    private final Counter commitFailureCounter;

    private final AtomicLong dispatched = new AtomicLong();
    private final AtomicLong outcomesProduced = new AtomicLong();
    private final AtomicLong undecodable = new AtomicLong();
    private final AtomicLong commitFailures = new AtomicLong();
    private final AtomicLong leaseExpired = new AtomicLong();
    private final AtomicLong pauses = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final Counter duplicateCounter;

    public ExecutorMetrics(PrometheusRegistry registry) {
        dispatches = Counter.builder().name("actiongate_executor_dispatches")
                .help("Connector dispatch calls by provider and resulting outcome status")
                .labelNames("provider", "status").register(registry);
        outcomes = Counter.builder().name("actiongate_executor_outcomes")
                .help("AttemptOutcome records produced by status (dispatched or not)")
                .labelNames("status").register(registry);
        dispatchLatency = Histogram.builder().name("actiongate_executor_dispatch_latency")
                .help("Time spent in a connector's dispatch call").unit(Unit.SECONDS)
                .labelNames("provider").register(registry);
        undecodableCounter = Counter.builder().name("actiongate_executor_undecodable_records")
                .help("Reservations that could not be decoded and were skipped").register(registry);
        commitFailureCounter = Counter.builder().name("actiongate_executor_commit_failures")
                .help("Batches whose offset commit failed; nothing of them was dispatched").register(registry);
        duplicateCounter = Counter.builder().name("actiongate_executor_duplicate_reservations")
                .help("Reservations of an attempt already read (the duplicate fence); none was dispatched")
                .register(registry);
    }

    void recordDuplicate() {
        duplicates.incrementAndGet();
        duplicateCounter.inc();
    }

    /** Reservations of an attempt already read, not dispatched again. */
    public long duplicates() {
        return duplicates.get();
    }

    void recordDispatch(String provider, String status, Duration latency) {
        dispatched.incrementAndGet();
        dispatches.labelValues(provider, status).inc();
        dispatchLatency.labelValues(provider).observe(latency.toNanos() / 1e9);
    }

    void recordOutcome(String status) {
        outcomesProduced.incrementAndGet();
        outcomes.labelValues(status).inc();
    }

    void recordUndecodable() {
        undecodable.incrementAndGet();
        undecodableCounter.inc();
    }

    void recordCommitFailure() {
        commitFailures.incrementAndGet();
        commitFailureCounter.inc();
    }

    void recordLeaseExpired() {
        leaseExpired.incrementAndGet();
    }

    void recordPause() {
        pauses.incrementAndGet();
    }

    /** Connector dispatch calls made. */
    public long dispatched() {
        return dispatched.get();
    }

    public long outcomesProduced() {
        return outcomesProduced.get();
    }

    public long undecodable() {
        return undecodable.get();
    }

    public long commitFailures() {
        return commitFailures.get();
    }

    public long leaseExpired() {
        return leaseExpired.get();
    }

    /** How often the poll loop waited for a free dispatch thread because the dispatch pool was full. */
    public long pauses() {
        return pauses.get();
    }
}
