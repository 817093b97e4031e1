package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.executor.ExecutorMetrics;
import io.actiongate.reconciler.ReconcilerMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * /metrics carries JVM metrics and every Kafka Streams, producer and consumer metric with its tags, in the format the
 * scraper asks for. No broker is needed: a Kafka client registers its metrics when it is constructed.
 */
class PrometheusMetricsTest {

    private static final String NO_BROKER = "127.0.0.1:1";

    @TempDir
    Path stateDir;

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private GateHttpServer server;
    private KafkaStreams streams;
    private KafkaProducer<String, String> producer;

    @BeforeEach
    void start() {
        JvmMetrics.builder().register(registry);
        KafkaMetricsBridge.register(registry);
        server = new GateHttpServer(HttpServerConfig.loopbackEphemeral(), new FakeStateQuery(), registry,
                () -> true).start();

        Map<String, String> config = KafkaMetricsBridge.withReporter(Map.of(), "kafka.metric.reporters");
        String reporters = config.get("kafka.metric.reporters");

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, NO_BROKER);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "metrics-test-producer");
        p.put(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG, reporters);
        producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("in").to("out");
        Properties s = new Properties();
        s.put(StreamsConfig.APPLICATION_ID_CONFIG, "metrics-test");
        s.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, NO_BROKER);
        s.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        s.put(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG, reporters);
        streams = new KafkaStreams(builder.build(), s);
    }

    @AfterEach
    void stop() {
        if (producer != null) {
            producer.close();
        }
        if (streams != null) {
            streams.close();
        }
        server.close();
    }

    private HttpResponse<String> scrape(String accept) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/metrics"));
        if (accept != null) {
            request.header("Accept", accept);
        }
        return Http.send(request);
    }

    @Test
    void shouldExposeJvmStreamsProducerAndConsumerMetricsWithTheirTags() {
        String body = scrape(null).body();

        assertThat(body).contains("jvm_memory_used_bytes{area=\"heap\"}", "jvm_threads_current",
                "jvm_gc_collection_seconds", "process_cpu_seconds_total");
        // Kafka Streams' own metrics, by thread
        assertThat(body).containsPattern("(?m)^kafka_streams_thread_process_rate\\{[^}]*thread_id=\"metrics-test-[^\"]+"
                + "StreamThread-1\"[^}]*} ");
        assertThat(body).containsPattern("(?m)^kafka_streams_thread_commit_latency_avg\\{");
        assertThat(body).containsPattern("(?m)^kafka_streams_client_alive_stream_threads\\{");
        // the producer's, with its client id as a label; Kafka's *-total metrics as counters
        assertThat(body).containsPattern(
                "(?m)^kafka_producer_record_send_rate\\{client_id=\"metrics-test-producer\"} ");
        assertThat(body).contains("# TYPE kafka_producer_record_send_total counter");
        assertThat(body).containsPattern("(?m)^kafka_producer_record_send_total\\{client_id=\"metrics-test-producer\"} ");
        // the consumers embedded in Kafka Streams
        assertThat(body).containsPattern("(?m)^kafka_consumer_fetch_manager_records_lag_max\\{client_id=\"metrics-test-");
        assertThat(body).containsPattern("(?m)^kafka_consumer_coordinator_rebalance_total\\{");
    }

    @Test
    void shouldWithdrawAClosedClientsMetrics() {
        assertThat(scrape(null).body()).contains("client_id=\"metrics-test-producer\"");
        producer.close();
        producer = null;
        assertThat(scrape(null).body()).doesNotContain("client_id=\"metrics-test-producer\"");
    }

    @Test
    void shouldNegotiateOpenMetricsAndKeepPrometheusTextAsTheDefault() {
        HttpResponse<String> open = scrape("application/openmetrics-text; version=1.0.0; charset=utf-8");
        assertThat(open.statusCode()).isEqualTo(200);
        assertThat(open.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("application/openmetrics-text; version=1.0.0"));
        assertThat(open.body()).endsWith("# EOF\n").contains("jvm_memory_used_bytes");

        HttpResponse<String> text = scrape("text/plain");
        assertThat(text.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("text/plain; version=0.0.4"));
        assertThat(text.body()).doesNotContain("# EOF");
    }

    @Test
    void shouldQueryOnlySeriesThatExistInTheGrafanaDashboard() throws Exception {
        new GateMetrics(registry);
        new ExecutorMetrics(registry);
        new ReconcilerMetrics(registry);
        Set<String> families = new TreeSet<>();
        registry.scrape().forEach(snapshot -> families.add(snapshot.getMetadata().getPrometheusName()));

        JsonNode dashboard = new ObjectMapper().readTree(Path.of("..", "helm", "actiongate", "dashboards",
                "actiongate.json").toFile());
        Set<String> queried = new TreeSet<>();
        Matcher names = Pattern.compile("\\b((?:actiongate|kafka|jvm|process)_[a-z0-9_]+)").matcher("");
        for (JsonNode expr : dashboard.findValues("expr")) {
            names.reset(expr.asText());
            while (names.find()) {
                queried.add(names.group(1).replaceAll("_(bucket|sum|count|total)$", ""));
            }
        }
        assertThat(queried).hasSizeGreaterThan(15);
        // task-level Streams metrics exist only once the gate owns tasks
        queried.remove("kafka_streams_task_restore_remaining_records");
        assertThat(families).containsAll(queried);
    }

    @Test
    void shouldNameKafkaMetricsPredictably() {
        assertThat(KafkaMetricsBridge.prometheusName("stream-thread-metrics", "process-rate"))
                .isEqualTo("kafka_streams_thread_process_rate");
        assertThat(KafkaMetricsBridge.prometheusName("stream-state-metrics", "block-cache-usage"))
                .isEqualTo("kafka_streams_state_block_cache_usage");
        assertThat(KafkaMetricsBridge.prometheusName("producer-metrics", "record-send-rate"))
                .isEqualTo("kafka_producer_record_send_rate");
        assertThat(KafkaMetricsBridge.prometheusName("consumer-fetch-manager-metrics", "records-lag-max"))
                .isEqualTo("kafka_consumer_fetch_manager_records_lag_max");
        assertThat(KafkaMetricsBridge.withReporter(Map.of("kafka.metric.reporters", "com.example.Other"),
                "kafka.metric.reporters")).containsEntry("kafka.metric.reporters",
                "com.example.Other," + KafkaMetricsReporter.class.getName());
    }
}
