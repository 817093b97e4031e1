package io.actiongate.http;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.stats.CumulativeSum;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;

/**
 * Every Kafka client metric of this JVM (fed by {@link KafkaMetricsReporter}) as Prometheus series, with Kafka's
 * tags as labels. Naming: {@code kafka_<group without -metrics>_<name>}, where Kafka Streams' {@code stream-*}
 * groups become {@code streams_*} ({@code stream-metrics} itself {@code streams_client}); for example {@code stream-thread-metrics / process-rate {thread-id}} is
 * {@code kafka_streams_thread_process_rate{thread_id=...}}, {@code producer-metrics / record-send-rate} is
 * {@code kafka_producer_record_send_rate}, {@code consumer-fetch-manager-metrics / records-lag-max} is
 * {@code kafka_consumer_fetch_manager_records_lag_max}. Kafka's cumulative {@code *-total} metrics (sums and counts)
 * are counters ({@code ..._total}), everything else a gauge (a non-cumulative {@code *-total} loses the suffix). Non-numeric metrics (versions, commit ids) are left out.
 */
public final class KafkaMetricsBridge implements MultiCollector {

    static final KafkaMetricsBridge INSTANCE = new KafkaMetricsBridge();

    private static final String TOTAL = "-total";

    /**
     * Each metric that feeds a series, with its series worked out once when Kafka adds it: a scrape only reads values.
     */
    private final Map<MetricName, Entry> metrics = new ConcurrentHashMap<>();

    private KafkaMetricsBridge() {
    }

    /** Exposes the JVM's Kafka metrics through {@code registry}. */
    public static void register(PrometheusRegistry registry) {
        registry.register(INSTANCE);
    }

    /**
     * A copy of {@code config} whose {@code key} (e.g. {@code kafka.metric.reporters}) lists this bridge's reporter
     * too; reporters already there stay.
     */
    public static Map<String, String> withReporter(Map<String, String> config, String key) {
        Map<String, String> copy = new TreeMap<>(config);
        String existing = copy.get(key);
        String reporter = KafkaMetricsReporter.class.getName();
        if (existing == null || existing.isBlank()) {
            copy.put(key, reporter);
        } else if (!List.of(existing.split("\\s*,\\s*")).contains(reporter)) {
            copy.put(key, existing + "," + reporter);
        }
        return copy;
    }

    /** The key that sets the reporter on every Kafka client of a node: {@code kafka.metric.reporters}. */
    public static String clientKey(String kafkaClientPrefix) {
        return kafkaClientPrefix + CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG;
    }

    void add(KafkaMetric metric) {
        Series series = series(metric);
        if (series != null) {
            metrics.put(metric.metricName(), new Entry(metric, series));
        }
    }

    void remove(KafkaMetric metric) {
        metrics.computeIfPresent(metric.metricName(), (name, entry) -> entry.metric() == metric ? null : entry);
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, GaugeSnapshot.Builder> gauges = new LinkedHashMap<>();
        Map<String, CounterSnapshot.Builder> counters = new LinkedHashMap<>();
        Map<String, Set<Labels>> seen = new LinkedHashMap<>();
        for (Entry entry : metrics.values()) {
            Series series = entry.series();
            String family = series.name();
            if (series.counter() ? gauges.containsKey(family) : counters.containsKey(family)) {
                continue; // a gauge and a counter would share one family name: keep the first
            }
            if (!(entry.metric().metricValue() instanceof Number number)
                    || !seen.computeIfAbsent(family, k -> new HashSet<>()).add(series.labels())) {
                continue;
            }
            double v = number.doubleValue();
            if (series.counter()) {
                if (v < 0) {
                    continue;
                }
                counters.computeIfAbsent(family, n -> CounterSnapshot.builder().name(n).help(series.help()))
                        .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                                .labels(series.labels()).value(v).build());
            } else {
                gauges.computeIfAbsent(family, n -> GaugeSnapshot.builder().name(n).help(series.help()))
                        .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                                .labels(series.labels()).value(v).build());
            }
        }
        List<MetricSnapshot> snapshots = new ArrayList<>(gauges.size() + counters.size());
        gauges.values().forEach(b -> snapshots.add(b.build()));
        counters.values().forEach(b -> snapshots.add(b.build()));
        return new MetricSnapshots(snapshots);
    }

    /** The series a metric feeds, or null for one that feeds none (Kafka's own metric count, an unusable name). */
    private static Series series(KafkaMetric metric) {
        MetricName name = metric.metricName();
        if ("kafka-metrics-count".equals(name.group())) {
            return null;
        }
        boolean total = name.name().endsWith(TOTAL);
        // restore-remaining-records-total is a sum Streams decrements: a gauge despite its name
        boolean counter = total && cumulative(metric) && !name.name().contains("remaining");
        // a *-total that is not cumulative (restore-remaining-records-total) is a gauge without the suffix
        String family = prometheusName(name.group(),
                total ? name.name().substring(0, name.name().length() - TOTAL.length()) : name.name());
        return family == null ? null : new Series(family, labels(name.tags()), help(name), counter);
    }

    private static boolean cumulative(KafkaMetric metric) {
        try {
            return metric.measurable() instanceof CumulativeSum;
        } catch (IllegalStateException e) {
            return false; // a gauge, not a measurable stat
        }
    }

    /** The Prometheus family name of a Kafka metric, or null when none can be made. */
    static String prometheusName(String group, String name) {
        String g = group.endsWith("-metrics") ? group.substring(0, group.length() - "-metrics".length()) : group;
        if ("stream".equals(g)) {
            g = "streams-client"; // the Streams client's own group, stream-metrics
        } else if (g.startsWith("stream-")) {
            g = "streams-" + g.substring("stream-".length());
        }
        String candidate = ("kafka_" + g + "_" + name).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return PrometheusNaming.isValidMetricName(candidate) ? candidate : null;
    }

    private static Labels labels(Map<String, String> tags) {
        Map<String, String> sorted = new TreeMap<>();
        tags.forEach((k, v) -> sorted.putIfAbsent(PrometheusNaming.sanitizeLabelName(k), v == null ? "" : v));
        return Labels.of(new ArrayList<>(sorted.keySet()), new ArrayList<>(sorted.values()));
    }

    private static String help(MetricName name) {
        String description = name.description();
        return description == null || description.isBlank() ? "Kafka " + name.group() + " " + name.name()
                : description;
    }

    private record Entry(KafkaMetric metric, Series series) {
    }

    private record Series(String name, Labels labels, String help, boolean counter) {
    }
}
