package io.actiongate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MainTest {

    @Test
    void shouldListCommandsInHelp() {
        CliRun run = CliRun.of("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: actiongate", "--verbose", "--version", "topics", "run", "decide");
    }

    @Test
    void shouldLeaveTheDevKitCommandsToTheDevKit() {
        CliRun run = CliRun.of("dev");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err()).contains("Unmatched argument", "'dev'");
        assertThat(CliRun.of("--help").out()).doesNotContainPattern("(?m)^\\s+(dev|demo)\\s");
    }

    @Test
    void shouldPrintVersion() {
        CliRun run = CliRun.of("--version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).startsWith("actiongate ");
    }

    @Test
    void shouldPrintUsageAndFailWithoutACommand() {
        CliRun run = CliRun.of();

        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err()).contains("Usage: actiongate");
    }

    @Test
    void shouldRejectAnUnknownOptionInOneLineWithAPointerToHelp() {
        CliRun run = CliRun.of("--frobnicate");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err()).startsWith("error: Unknown option: '--frobnicate'")
                .contains("Run 'actiongate --help' for usage.")
                .doesNotContain("Exception");
    }

    @Test
    void shouldDescribeTopicsCreateOptions() {
        CliRun run = CliRun.of("topics", "create", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--bootstrap-servers", "--prefix", "--partitions", "--replication-factor",
                "--config", "Exit codes: 0");
    }

    @Test
    void shouldRejectNonNumericPartitionsBeforeConnecting() {
        CliRun run = CliRun.of("topics", "create", "--partitions", "many");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err()).startsWith("error: Invalid value for option '--partitions'")
                .contains("Run 'actiongate topics create --help' for usage.");
    }

    @Test
    void shouldReportAnInvalidConfigurationValueInOneLineWithoutStackTrace() {
        CliRun run = CliRun.of("topics", "create", "--partitions", "0", "--bootstrap-servers", "127.0.0.1:1");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err().lines().findFirst()).hasValueSatisfying(line -> assertThat(line)
                .startsWith("error: Invalid value 0 for configuration topic.partitions"));
        assertThat(run.err()).doesNotContain("\tat ").contains("--verbose");
    }

    @Test
    void shouldPrintTheStackTraceWithVerboseGivenAfterTheCommand() {
        CliRun run = CliRun.of("topics", "create", "--bootstrap-servers", "not-a-host-port", "--verbose");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err()).startsWith("error: Invalid value")
                .contains("'not-a-host-port' is not host:port")
                .contains("\tat io.actiongate.");
    }

    @Test
    void shouldFailOnAMissingConfigFile() {
        CliRun run = CliRun.of("topics", "create", "--config", "/nonexistent/actiongate.yaml");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err()).startsWith("error: config file /nonexistent/actiongate.yaml does not exist");
    }
}
