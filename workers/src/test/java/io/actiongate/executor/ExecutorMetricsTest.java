package io.actiongate.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

class ExecutorMetricsTest {

    @Test
    void shouldExposeDispatchesByProviderAndStatusAndTheLatencyHistogram() throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        ExecutorMetrics metrics = new ExecutorMetrics(registry);
        metrics.recordDispatch("webhook", "SUCCEEDED", Duration.ofMillis(120));
        metrics.recordDispatch("webhook", "UNKNOWN", Duration.ofMillis(900));
        metrics.recordCommitFailure();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        String text = out.toString(StandardCharsets.UTF_8);

        assertThat(text)
                .contains("actiongate_executor_dispatches_total{provider=\"webhook\",status=\"SUCCEEDED\"} 1.0")
                .contains("actiongate_executor_dispatches_total{provider=\"webhook\",status=\"UNKNOWN\"} 1.0")
                .contains("actiongate_executor_dispatch_latency_seconds_count{provider=\"webhook\"} 2")
                .contains("actiongate_executor_commit_failures_total 1.0");
        assertThat(metrics.dispatched()).isEqualTo(2);
    }
}
