package io.actiongate.http;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * The gate's Prometheus metrics. Labels are bounded enumerations (status, reason code, connector), never ids,
 * inputs or free text, so no body or secret can reach {@code /metrics} (docs/contract.md, invariant 5).
 *
 * <pre>
 * actiongate_receipts_total{status, reason_code}           receipts published
 * actiongate_approval_wait_seconds                         proposal to approval decision
 * actiongate_unknown_outcomes_open                         UNKNOWN actions not yet resolved
 * actiongate_consumer_lag_records{role}                    max records-lag-max of the role's Kafka consumers
 * </pre>
 * Dispatches, outcomes and dispatch latency by connector are the executor's ({@code actiongate_executor_*},
 * {@code io.actiongate.executor.ExecutorMetrics}); reconciliations are the reconciler's.
 */
public final class GateMetrics {

    /** Label value for an absent reason code. */
    public static final String NO_REASON = "none";

    private static final double[] APPROVAL_BUCKETS =
            {1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600};

    private final Counter receipts;
    private final Histogram approvalWait;
    private final Gauge openUnknown;
    private final Map<String, Supplier<? extends Map<MetricName, ? extends Metric>>> lagSources =
            new ConcurrentHashMap<>();
    private volatile java.util.function.IntSupplier hangingTransactions;

    public GateMetrics(PrometheusRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        receipts = Counter.builder().name("actiongate_receipts_total")
                .help("Receipts published, by status and reason code")
                .labelNames("status", "reason_code").register(registry);
        approvalWait = Histogram.builder().name("actiongate_approval_wait_seconds")
                .help("Time an action waited for a human decision").unit(Unit.SECONDS)
                .classicOnly().classicUpperBounds(APPROVAL_BUCKETS).register(registry);
        openUnknown = Gauge.builder().name("actiongate_unknown_outcomes_open")
                .help("Actions in UNKNOWN that are not resolved yet").register(registry);
        GaugeWithCallback.builder().name("actiongate_consumer_lag_records")
                .help("Largest records-lag-max over the Kafka consumers of a role")
                .labelNames("role").callback(callback -> lagSources.forEach((role, source) -> {
                    double lag = maxRecordsLag(source.get());
                    if (!Double.isNaN(lag)) {
                        callback.call(lag, role);
                    }
                })).register(registry);
        GaugeWithCallback.builder().name("actiongate_gate_hanging_transactions")
                .help("Hanging transactions on the gate's partitions at the gate's last look "
                        + "(gate.transactions.hanging.check.interval); each one stops a partition's readers")
                .callback(callback -> {
                    java.util.function.IntSupplier source = hangingTransactions;
                    if (source != null) {
                        callback.call(source.getAsInt());
                    }
                }).register(registry);
    }

    /** Reports the gate's hanging-transaction count, read at scrape time. */
    public void hangingTransactions(java.util.function.IntSupplier count) {
        this.hangingTransactions = Objects.requireNonNull(count, "count");
    }

    /** A receipt was published with {@code status} and {@code reasonCode} (null when none). */
    public void receipt(String status, String reasonCode) {
        receipts.labelValues(status, reasonCode == null ? NO_REASON : reasonCode).inc();
    }

    /** A human decision arrived {@code wait} after the action started waiting. */
    public void approvalWait(Duration wait) {
        if (wait != null && !wait.isNegative()) {
            approvalWait.observe(seconds(wait));
        }
    }

    /** An action entered UNKNOWN. */
    public void unknownOpened() {
        openUnknown.inc();
    }

    /** An UNKNOWN action was resolved (reconciler or owner). */
    public void unknownResolved() {
        openUnknown.dec();
    }

    /** Sets the open UNKNOWN count outright, e.g. from a store count after a restart. */
    public void openUnknownOutcomes(long count) {
        openUnknown.set(count);
    }

    /**
     * Reports consumer lag for {@code role} (e.g. {@code gate}, {@code executor}) from Kafka client metrics, read
     * at scrape time: {@code streams::metrics} or {@code consumer::metrics}.
     */
    public void consumerLag(String role, Supplier<? extends Map<MetricName, ? extends Metric>> kafkaMetrics) {
        lagSources.put(Objects.requireNonNull(role, "role"), Objects.requireNonNull(kafkaMetrics, "kafkaMetrics"));
    }

    /** Stops reporting lag for {@code role} (its client closed). */
    public void removeConsumerLag(String role) {
        lagSources.remove(role);
    }

    static double maxRecordsLag(Map<MetricName, ? extends Metric> metrics) {
        double max = Double.NaN;
        for (Map.Entry<MetricName, ? extends Metric> entry : metrics.entrySet()) {
            MetricName name = entry.getKey();
            if (!"records-lag-max".equals(name.name()) || !name.group().endsWith("consumer-fetch-manager-metrics")) {
                continue;
            }
            Object value = entry.getValue().metricValue();
            if (value instanceof Number number) {
                double lag = number.doubleValue();
                if (Double.isFinite(lag) && lag >= 0 && (Double.isNaN(max) || lag > max)) {
                    max = lag;
                }
            }
        }
        return max;
    }

    private static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }
}
