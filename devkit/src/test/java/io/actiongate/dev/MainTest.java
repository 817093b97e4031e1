package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MainTest {

    @Test
    void shouldListTheDevKitCommandsBesideTheProductionOnes() {
        CliRun run = CliRun.of("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: actiongate", "dev", "demo", "chaos", "topics", "run", "decide", "receipts");
    }

    @Test
    void shouldDescribeDevOptions() {
        CliRun run = CliRun.of("dev", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--port", "9092", "--data-dir", "--config");
    }

    @Test
    void shouldInheritVerboseIntoTheDevKitCommands() {
        CliRun run = CliRun.of("demo", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--verbose");
    }
}
