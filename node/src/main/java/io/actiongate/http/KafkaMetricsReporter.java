package io.actiongate.http;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;

/**
 * A Kafka {@link MetricsReporter} (config {@code metric.reporters}) that hands every metric of the client it is
 * configured on to {@link KafkaMetricsBridge}: Kafka Streams (thread, task, processor node, state store and RocksDB
 * metrics and those of its embedded clients), producers, consumers and admin clients alike. Kafka creates one
 * instance per client; closing the client withdraws its metrics.
 */
public final class KafkaMetricsReporter implements MetricsReporter {

    private final Set<KafkaMetric> reported = ConcurrentHashMap.newKeySet();

    @Override
    public void configure(Map<String, ?> configs) {
        // nothing to configure: the bridge is per JVM
    }

    @Override
    public void init(List<KafkaMetric> metrics) {
        metrics.forEach(this::metricChange);
    }

    @Override
    public void metricChange(KafkaMetric metric) {
        reported.add(metric);
        KafkaMetricsBridge.INSTANCE.add(metric);
    }

    @Override
    public void metricRemoval(KafkaMetric metric) {
        reported.remove(metric);
        KafkaMetricsBridge.INSTANCE.remove(metric);
    }

    @Override
    public void close() {
        reported.forEach(KafkaMetricsBridge.INSTANCE::remove);
        reported.clear();
    }
}
