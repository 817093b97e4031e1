package io.actiongate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

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

        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
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
    void shouldPrintTheVersionFromEveryCommandAndSubcommand() {
        List<List<String>> commands = new ArrayList<>();
        collect(Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())),
                new ArrayList<>(), commands);
        assertThat(commands).contains(List.of("run"), List.of("topics"), List.of("topics", "create"),
                List.of("keys", "generate"), List.of("policy", "put"), List.of("mcp", "import"));
        String version = CliRun.of("--version").out();
        for (List<String> command : commands) {
            List<String> args = new ArrayList<>(command);
            args.add("--version");
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertThat(run.exitCode()).as(String.join(" ", args) + ": " + run.err()).isZero();
            assertThat(run.out()).as(String.join(" ", args)).isEqualTo(version).startsWith("actiongate ");
        }
    }

    private static void collect(CommandLine cl, List<String> path, List<List<String>> into) {
        cl.getSubcommands().forEach((name, sub) -> {
            if (sub.getCommandName().equals(name)) {
                List<String> command = new ArrayList<>(path);
                command.add(name);
                into.add(command);
                collect(sub, command, into);
            }
        });
    }

    @Test
    void shouldTellUsageErrorsFromRuntimeFailuresByExitCode() {
        // usage: an unknown subcommand, a missing subcommand, a missing required option, a malformed value
        assertThat(CliRun.of("topics", "frobnicate").exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(CliRun.of("topics").exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(CliRun.of("keys").exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(CliRun.of("run", "--roles").exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(CliRun.of("receipts", "--bootstrap-servers").exitCode()).isEqualTo(ExitCodes.USAGE);
        // runtime: the command line is fine, what it names is not
        assertThat(CliRun.of("topics", "create", "--config", "/nonexistent/a.yaml").exitCode())
                .isEqualTo(ExitCodes.ERROR);
        assertThat(CliRun.of("propose", "--file", "/nonexistent/p.json", "--dry-run").exitCode())
                .isEqualTo(ExitCodes.ERROR);
        assertThat(ExitCodes.DRIFT).isNotIn(ExitCodes.OK, ExitCodes.ERROR, ExitCodes.USAGE);
    }

    @Test
    void shouldPrintUsageAndFailWithoutACommand() {
        CliRun run = CliRun.of();

        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("Usage: actiongate");
    }

    @Test
    void shouldRejectAnUnknownOptionInOneLineWithAPointerToHelp() {
        CliRun run = CliRun.of("--frobnicate");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).startsWith("error: Unknown option: '--frobnicate'")
                .contains("Run 'actiongate --help' for usage.")
                .doesNotContain("Exception");
    }

    @Test
    void shouldDescribeTopicsCreateOptions() {
        CliRun run = CliRun.of("topics", "create", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--bootstrap-servers", "--prefix", "--partitions", "--replication-factor",
                "--config", "Exit codes:");
    }

    @Test
    void shouldRejectNonNumericPartitionsBeforeConnecting() {
        CliRun run = CliRun.of("topics", "create", "--partitions", "many");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
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
