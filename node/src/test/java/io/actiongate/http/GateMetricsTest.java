package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

class GateMetricsTest {

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final GateMetrics metrics = new GateMetrics(registry);

    private String scrape() {
        return ExpositionFormats.init().getPrometheusTextFormatWriter().toDebugString(registry.scrape());
    }

    @Test
    void shouldCountReceiptsByStatusAndReasonCode() {
        metrics.receipt("REJECTED", "DIGEST_MISMATCH");
        metrics.receipt("REJECTED", "DIGEST_MISMATCH");
        metrics.receipt("SUCCEEDED", null);

        assertThat(scrape())
                .contains("actiongate_receipts_total{reason_code=\"DIGEST_MISMATCH\",status=\"REJECTED\"} 2")
                .contains("actiongate_receipts_total{reason_code=\"none\",status=\"SUCCEEDED\"} 1");
    }

    @Test
    void shouldTrackOpenUnknownOutcomesAndApprovalWait() {
        metrics.unknownOpened();
        metrics.unknownOpened();
        metrics.unknownResolved();
        metrics.approvalWait(Duration.ofSeconds(42));

        assertThat(scrape())
                .contains("actiongate_unknown_outcomes_open 1.0")
                .contains("actiongate_approval_wait_seconds_count 1")
                .contains("actiongate_approval_wait_seconds_sum 42.0");

        metrics.openUnknownOutcomes(7);
        assertThat(scrape()).contains("actiongate_unknown_outcomes_open 7.0");
    }

    @Test
    void shouldReportTheGatesHangingTransactionsAtScrapeTimeOnlyOnceAGateFeedsThem() {
        assertThat(scrape()).doesNotContain("actiongate_gate_hanging_transactions ");
        int[] found = {3};
        metrics.hangingTransactions(() -> found[0]);

        assertThat(scrape()).contains("actiongate_gate_hanging_transactions 3.0");
        found[0] = 0;
        assertThat(scrape()).contains("actiongate_gate_hanging_transactions 0.0");
    }

    @Test
    void shouldReportTheLargestRecordsLagOfTheKafkaClientsOfARole() {
        Map<MetricName, Metric> kafka = new HashMap<>();
        put(kafka, "records-lag-max", "consumer-fetch-manager-metrics", 12.0, Map.of("client-id", "a"));
        put(kafka, "records-lag-max", "consumer-fetch-manager-metrics", 40.0, Map.of("client-id", "b"));
        put(kafka, "records-lag-max", "consumer-fetch-manager-metrics", Double.NaN, Map.of("client-id", "c"));
        put(kafka, "records-lag-max", "producer-metrics", 99.0, Map.of());
        put(kafka, "records-lead-min", "consumer-fetch-manager-metrics", 500.0, Map.of());

        metrics.consumerLag("executor", () -> kafka);

        assertThat(scrape()).contains("actiongate_consumer_lag_records{role=\"executor\"} 40.0");

        metrics.removeConsumerLag("executor");
        assertThat(scrape()).doesNotContain("role=\"executor\"");
    }

    @Test
    void shouldReportNoLagBeforeTheConsumerHasFetched() {
        Map<MetricName, Metric> kafka = new HashMap<>();
        put(kafka, "records-lag-max", "consumer-fetch-manager-metrics", Double.NaN, Map.of());

        metrics.consumerLag("gate", () -> kafka);

        assertThat(scrape()).doesNotContain("role=\"gate\"");
    }

    private static void put(Map<MetricName, Metric> metrics, String name, String group, double value,
                            Map<String, String> tags) {
        MetricName metricName = new MetricName(name, group, "", tags);
        metrics.put(metricName, new Metric() {
            @Override
            public MetricName metricName() {
                return metricName;
            }

            @Override
            public Object metricValue() {
                return value;
            }
        });
    }
}
