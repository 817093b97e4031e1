package io.actiongate.storage;

import java.util.concurrent.atomic.AtomicLong;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** The attachment cleaner's counters; labels carry receipt statuses only. */
public final class CleanupMetrics {

    private final Counter deletedCounter;
    private final Counter settledCounter;
    private final Counter failureCounter;
    private final AtomicLong deleted = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    public CleanupMetrics(PrometheusRegistry registry) {
        deletedCounter = Counter.builder().name("actiongate_attachments_deleted")
                .help("Staged attachment objects deleted after their action settled, by receipt status")
                .labelNames("status").register(registry);
        settledCounter = Counter.builder().name("actiongate_attachment_cleanups")
                .help("Settled receipts whose staged objects the cleaner removed (or found already gone)")
                .labelNames("status").register(registry);
        failureCounter = Counter.builder().name("actiongate_attachment_cleanup_failures")
                .help("Cleanup attempts that failed on the object store and will be retried").register(registry);
    }

    void recordCleanup(String status, int objects) {
        settledCounter.labelValues(status).inc();
        if (objects > 0) {
            deletedCounter.labelValues(status).inc(objects);
            deleted.addAndGet(objects);
        }
    }

    void recordFailure() {
        failureCounter.inc();
        failures.incrementAndGet();
    }

    public long deleted() {
        return deleted.get();
    }

    public long failures() {
        return failures.get();
    }
}
