package io.actiongate.loadtest.harness;

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
        assertThat(o.parts()).containsExactlyElementsOf(BenchOptions.PARTS);
        assertThat(o.providerLatencyMs()).isEqualTo(2);
        assertThat(o.memoryActions()).isEqualTo(1_000_000);
        assertThat(o.scalePartitions()).containsExactly(6, 12, 24);
        assertThat(o.openLoopPercents()).containsExactly(25, 50, 75);
        assertThat(o.resultsDir()).isEqualTo(Path.of("bench-results"));
        assertThat(o.progress()).isTrue();
    }

    @Test
    void shouldReadEveryOption() {
        BenchOptions o = BenchOptions.parse(List.of("--actions", "1_000", "--rounds", "3", "--broker-actions", "50",
                "--partitions", "2", "--skip-broker", "--state-dir", "/tmp/x", "--set", "executor.dispatch.threads=16",
                "--set", "streams.commit.interval.ms=50", "--misroute"));

        assertThat(o.actions()).isEqualTo(1_000);
        assertThat(o.rounds()).isEqualTo(3);
        assertThat(o.brokerActions()).isEqualTo(50);
        assertThat(o.partitions()).isEqualTo(2);
        assertThat(o.skipBroker()).isTrue();
        assertThat(o.parts()).containsExactly("topology");
        assertThat(o.stateDir()).isEqualTo(Path.of("/tmp/x"));
        assertThat(o.nodeSettings()).isEqualTo(
                Map.of("executor.dispatch.threads", "16", "streams.commit.interval.ms", "50"));
        assertThat(o.misroute()).isTrue();
        assertThat(BenchOptions.parse(List.of()).misroute()).isFalse();
    }

    @Test
    void shouldReadThePartSelectionAndTheNewRowsOptions() {
        BenchOptions o = BenchOptions.parse(List.of("--only", "scale,broker", "--results", "/tmp/r",
                "--provider-latency-ms", "0", "--memory-actions", "1000", "--scale-partitions", "3,6",
                "--open-loop", "10,90", "--open-loop-base", "1500", "--no-progress"));

        assertThat(o.parts()).containsExactly("broker", "scale");
        assertThat(o.runs("broker")).isTrue();
        assertThat(o.runs("topology")).isFalse();
        assertThat(o.resultsDir()).isEqualTo(Path.of("/tmp/r"));
        assertThat(o.providerLatencyMs()).isZero();
        assertThat(o.memoryActions()).isEqualTo(1000);
        assertThat(o.scalePartitions()).containsExactly(3, 6);
        assertThat(o.openLoopPercents()).containsExactly(10, 90);
        assertThat(o.openLoopBase()).isEqualTo(1500);
        assertThat(BenchOptions.defaults().openLoopBase()).as("row f's throughput").isZero();
        assertThat(o.progress()).isFalse();
        assertThat(BenchOptions.parse(List.of("--skip", "memory,postgres")).parts())
                .doesNotContain("memory", "postgres").contains("topology", "scale");
    }

    @Test
    void shouldTimeRowsForTenSecondsAndSweepEightToSixtyFourPgWorkersByDefault() {
        BenchOptions d = BenchOptions.parse(List.of());
        assertThat(d.rowSeconds()).isEqualTo(10);
        assertThat(d.pgWorkers()).containsExactly(8, 32, 64);

        BenchOptions o = BenchOptions.parse(List.of("--row-seconds", "0", "--pg-workers", "4,16"));
        assertThat(o.rowSeconds()).isZero();
        assertThat(o.pgWorkers()).containsExactly(4, 16);
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--row-seconds", "-1")))
                .hasMessageContaining("--row-seconds must be 0 or more");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--pg-workers", "8,0")))
                .hasMessageContaining("--pg-workers must be at least 1");
    }

    @Test
    void shouldForkOneJvmPerTopologyRowByDefault() {
        assertThat(BenchOptions.parse(List.of()).forks()).isEqualTo(1);
        assertThat(BenchOptions.parse(List.of("--forks", "0")).forks()).isZero();
        assertThat(BenchOptions.parse(List.of("--forks", "3")).forks()).isEqualTo(3);
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--forks", "-1")))
                .hasMessageContaining("--forks must be 0 (no fork) or more");
    }

    @Test
    void shouldWarmDevsJitForAtMostThreeMinutesPerTransportByDefault() {
        assertThat(BenchOptions.parse(List.of()).closedLoopJitSeconds()).isEqualTo(180);
        assertThat(BenchOptions.parse(List.of("--closed-loop-jit-seconds", "0")).closedLoopJitSeconds()).isZero();
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--closed-loop-jit-seconds", "-5")))
                .hasMessageContaining("--closed-loop-jit-seconds must be 0 or more");
    }

    @Test
    void shouldBurstSixtyFiveThousandDecisionsByDefaultWhateverTheBrokerActions() {
        assertThat(BenchOptions.parse(List.of()).decisions()).isEqualTo(65_000);
        assertThat(BenchOptions.parse(List.of("--broker-actions", "30")).decisions()).isEqualTo(65_000);
        assertThat(BenchOptions.parse(List.of("--decisions", "5_000")).decisions()).isEqualTo(5_000);
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--decisions", "0")))
                .hasMessageContaining("--decisions must be at least 1");
    }

    @Test
    void shouldRejectUnknownOptionsMissingValuesAndNonPositiveCounts() {
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--fast"))).hasMessageContaining("unknown option --fast");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--actions"))).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--rounds", "0"))).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--set", "=1"))).hasMessageContaining("key=value");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--actions", "many")))
                .hasMessageContaining("whole number");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--only", "speed"))).hasMessageContaining("unknown part");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--open-loop", "150"))).hasMessageContaining("1..100");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--open-loop-base", "-1")))
                .hasMessageContaining("--open-loop-base must be 0");
    }
}
