package io.actiongate.reconciler;

import java.util.concurrent.atomic.AtomicLong;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** The reconciler's counters, registered in the Prometheus registry given at start; getters for tests. */
public final class ReconcilerMetrics {

    private final Counter reconciliations;
    private final Counter lookupCounter;
    private final Gauge openGauge;
    private final AtomicLong lookups = new AtomicLong();
    private final AtomicLong undecodable = new AtomicLong();

    public ReconcilerMetrics(PrometheusRegistry registry) {
        reconciliations = Counter.builder().name("actiongate_reconciler_reconciliations")
                .help("Reconciliations produced by provider and verdict").labelNames("provider", "verdict")
                .register(registry);
        lookupCounter = Counter.builder().name("actiongate_reconciler_lookups")
                .help("Connector lookups by provider and answer").labelNames("provider", "verdict")
                .register(registry);
        openGauge = Gauge.builder().name("actiongate_reconciler_open_unknown_outcomes")
                .help("Unknown outcomes this reconciler is still working on").register(registry);
    }

    void recordLookup(String provider, String verdict) {
        lookups.incrementAndGet();
        lookupCounter.labelValues(provider, verdict).inc();
    }

    void recordReconciliation(String provider, String verdict) {
        reconciliations.labelValues(provider, verdict).inc();
    }

    void recordUndecodable() {
        undecodable.incrementAndGet();
    }

    void setOpen(int open) {
        openGauge.set(open);
    }

    public long lookups() {
        return lookups.get();
    }

    public long undecodable() {
        return undecodable.get();
    }
}
