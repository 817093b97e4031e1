package io.actiongate.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    @Test
    void shouldUseTheDocumentedDefaults() {
        BenchOptions o = BenchOptions.parse(List.of());

        assertThat(o.actions()).isEqualTo(20_000);
        assertThat(o.rounds()).isEqualTo(5);
        assertThat(o.brokerActions()).isEqualTo(2_000);
        assertThat(o.partitions()).isEqualTo(12);
        assertThat(o.skipBroker()).isFalse();
        assertThat(o.nodeSettings()).isEmpty();
    }

    @Test
    void shouldReadEveryOption() {
        BenchOptions o = BenchOptions.parse(List.of("--actions", "1_000", "--rounds", "3", "--broker-actions", "50",
                "--partitions", "2", "--skip-broker", "--state-dir", "/tmp/x", "--set", "executor.dispatch.threads=16",
                "--set", "streams.commit.interval.ms=50", "--misroute"));

        assertThat(o).isEqualTo(new BenchOptions(1_000, 3, 50, 2, true, Path.of("/tmp/x"),
                Map.of("executor.dispatch.threads", "16", "streams.commit.interval.ms", "50"), true));
        assertThat(BenchOptions.parse(List.of()).misroute()).isFalse();
    }

    @Test
    void shouldRejectUnknownOptionsMissingValuesAndNonPositiveCounts() {
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--fast"))).hasMessageContaining("unknown option --fast");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--actions"))).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--rounds", "0"))).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--set", "=1"))).hasMessageContaining("key=value");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--actions", "many")))
                .hasMessageContaining("whole number");
    }
}
