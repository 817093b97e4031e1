package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.contract.ContractLimits;
import io.actiongate.digest.Digests;

/** {@code propose} and {@code policy} paths that never reach Kafka: dry runs and validation errors. */
class ProposeCommandTest {

    @TempDir
    Path dir;

    @Test
    void shouldLetFlagsOverrideTheFileAndPrintTheDigestsOnADryRun() throws Exception {
        Path file = dir.resolve("p.json");
        Files.writeString(file, ProposalJsonTest.minimal().toString());

        Cli.Result result = Cli.run("propose", "--file", file.toString(), "--dry-run", "--task-id", "T-9",
                "--input", "{\"to\": \"b@example.org\"}");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("action_key:    T-9/call-1")
                .contains("input_digest:  " + Digests.inputDigest("{\"to\":\"b@example.org\"}"))
                .containsPattern("action_digest: sha256:[0-9a-f]{64}");
    }

    @Test
    void shouldBuildAProposalFromFlagsAlone() {
        Cli.Result result = Cli.run("propose", "--dry-run", "--task-id", "T-1", "--tool-call-id", "c-1",
                "--task-version", "1", "--org", "acme", "--principal", "u1", "--profile", "p1",
                "--authorization-epoch", "2", "--provider", "webhook", "--operation", "send", "--tool", "send",
                "--tool-schema-hash", "h", "--input", "{}", "--summary", "Send nothing");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("action_key:    T-1/c-1");
    }

    @Test
    void shouldStateTheContractsLimitsInItsHelp() {
        // the descriptions read ContractLimits through the command's resource bundle (ContractLimitsText)
        Cli.Result result = Cli.run("propose", "--help");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out().replaceAll("\\s+", " "))
                .contains("--summary=TEXT Plain language, at most 280 characters.")
                .contains("at most " + ContractLimits.SUMMARY_MAX_CHARS + " characters.")
                .doesNotContain("${bundle:");
        // picocli may wrap the character class at its '.'
        assertThat(result.out().replaceAll("\\s+", ""))
                .contains("thetasktheactionbelongsto([A-Za-z0-9._:-],atmost128).");
    }

    @Test
    void shouldExplainAMissingFieldInOneLine() {
        Cli.Result result = Cli.run("propose", "--dry-run", "--task-id", "T-1");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).isEqualTo("error: proposal: field 'tool_call_id' is required\n");
    }

    @Test
    void shouldNeverPrintACredentialOfAnInvalidInputOrFileEvenVerbose() throws Exception {
        // a JSON failure is said by kind and position; Jackson's message (and so a --verbose trace
        // of it) would quote the token
        for (String token : io.actiongate.testing.TokenShapes.all().values()) {
            Path file = dir.resolve("bad.json");
            Files.writeString(file, "{\"task_id\": " + token + "}");
            List<Cli.Result> results = List.of(
                    Cli.run("--verbose", "propose", "--dry-run", "--task-id", "T-1", "--input", "{\"to\": " + token + "}"),
                    Cli.run("--verbose", "propose", "--dry-run", "--file", file.toString()),
                    Cli.run("--verbose", "policy", "put", "--file", file.toString()),
                    Cli.run("propose", "--dry-run", "--input", token));
            for (Cli.Result r : results) {
                assertThat(r.exitCode()).isNotZero();
                assertThat(r.err()).contains("is not valid JSON (");
                assertThat(r.out() + r.err()).as(r.err()).satisfies(text ->
                        assertThat(io.actiongate.testing.TokenShapes.leaks(text)).isFalse());
            }
        }
    }

    @Test
    void shouldPointAtTheSyntaxErrorOfAnInvalidFile() throws Exception {
        Path file = dir.resolve("broken.json");
        Files.writeString(file, "{\n  \"task_id\": \"T-1\",,\n}");

        Cli.Result result = Cli.run("propose", "--file", file.toString(), "--dry-run");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("error: " + file + " is not valid JSON (unexpected character at line 2")
                .hasLineCount(1);
    }

    @Test
    void shouldReportAMissingFile() {
        Cli.Result result = Cli.run("propose", "--file", dir.resolve("none.json").toString(), "--dry-run");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("error: no such file:");
    }

    @Test
    void policyPutShouldRejectAnInvalidFileBeforeWritingAnything() throws Exception {
        Path file = dir.resolve("policy.json");
        Files.writeString(file, "{\"key\": \"tool:webhook\", \"kind\": \"tool\"}");

        Cli.Result result = Cli.run("policy", "put", "--file", file.toString(), "--bootstrap-servers",
                "127.0.0.1:1");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).isEqualTo("error: policy: policy key must be tool:{provider}:{tool_name}, was "
                + "'tool:webhook'\n");
    }

    @Test
    void policyDeleteShouldRejectAKeyOfNoKnownKind() {
        Cli.Result result = Cli.run("policy", "delete", "tools:webhook:x", "--bootstrap-servers", "127.0.0.1:1");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("error: unknown policy kind 'tools'");
    }

    @Test
    void groupCommandsWithoutASubcommandShouldPrintUsageAndFail() {
        Cli.Result policy = Cli.run("policy");
        Cli.Result keys = Cli.run("keys");

        assertThat(policy.exitCode()).isNotZero();
        assertThat(policy.err()).contains("put").contains("delete");
        assertThat(keys.exitCode()).isNotZero();
        assertThat(keys.err()).contains("generate");
    }

    @Test
    void everyOperatorCommandShouldHaveHelp() {
        for (String[] command : new String[][] {{"keys", "generate"}, {"decide"}, {"propose"}, {"policy", "put"},
            {"policy", "delete"}, {"status"}, {"receipts"}}) {
            String[] args = new String[command.length + 1];
            System.arraycopy(command, 0, args, 0, command.length);
            args[command.length] = "--help";

            Cli.Result result = Cli.run(args);

            assertThat(result.exitCode()).as(String.join(" ", command)).isZero();
            assertThat(result.out()).as(String.join(" ", command)).contains("Usage: actiongate " + command[0]);
        }
    }

    @Test
    void kafkaCommandsShouldFailWithOneLineNamingTheBrokerWhenKafkaIsUnreachable() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        String broker = "127.0.0.1:" + port;
        // the CLI's own bounds are 10 s; a user's client settings shorten them, as here
        Path fast = Files.writeString(dir.resolve("fast.properties"),
                "max.block.ms=2000\nrequest.timeout.ms=2000\ndefault.api.timeout.ms=2000\n");

        Cli.Result delete = Cli.run("policy", "delete", "epoch:acme", "--bootstrap-servers", broker,
                "--kafka-config", fast.toString());
        Cli.Result receipts = Cli.run("receipts", "--bootstrap-servers", broker, "--kafka-config", fast.toString());

        assertThat(delete.exitCode()).isEqualTo(1);
        assertThat(delete.err()).startsWith("error: cannot write to actiongate.policy at " + broker).hasLineCount(1);
        assertThat(receipts.exitCode()).isEqualTo(1);
        assertThat(receipts.err()).isEqualTo("error: cannot reach Kafka at " + broker + ": timed out listing topics\n");
    }

    @Test
    void everyProposeOptionShouldSayWhatItIsInHelp() {
        picocli.CommandLine propose = io.actiongate.cli.Main.commandLine(new java.io.PrintWriter(
                new java.io.StringWriter()), new java.io.PrintWriter(new java.io.StringWriter()))
                .getSubcommands().get("propose");

        assertThat(propose.getCommandSpec().options()).isNotEmpty().allSatisfy(option ->
                assertThat(String.join(" ", option.description())).as(option.longestName()).isNotBlank());
        assertThat(Cli.run("propose", "--help").out()).contains("--no-wait").contains("--wait=DURATION")
                .contains("--review-url=URL");
    }

    @Test
    void helpOfACommandGroupShouldShowEachSubcommandsWholeSummary() {
        Cli.Result mcp = Cli.run("mcp", "--help");

        assertThat(mcp.exitCode()).isZero();
        assertThat(mcp.out().replaceAll("\\s+", " ")).contains("import Trust named tools of an upstream MCP server: "
                + "write their ToolDescriptor policy records.");
    }

    @Test
    void everySubcommandSummaryShouldBeAWholeSentence() {
        java.util.List<String> cut = new java.util.ArrayList<>();
        java.util.ArrayDeque<picocli.CommandLine> todo = new java.util.ArrayDeque<>();
        todo.add(io.actiongate.cli.Main.commandLine(new java.io.PrintWriter(new java.io.StringWriter()),
                new java.io.PrintWriter(new java.io.StringWriter())));
        while (!todo.isEmpty()) {
            picocli.CommandLine c = todo.poll();
            String[] description = c.getCommandSpec().usageMessage().description();
            if (c.getParent() != null && description.length > 0 && !description[0].strip().matches(".*[.)]$")) {
                cut.add(c.getCommandSpec().qualifiedName() + ": " + description[0]);
            }
            todo.addAll(c.getSubcommands().values());
        }
        assertThat(cut).as("the command list shows only the first description line").isEmpty();
    }

    @Test
    void shouldBuildTheReviewUrlFromTheApprovalServicesUrlOrATemplate() {
        assertThat(ProposeCommand.reviewUrl("https://approve.example.com/", "T-1", "c-1"))
                .isEqualTo("https://approve.example.com/review/T-1/c-1");
        assertThat(ProposeCommand.reviewUrl("https://ui.example.com/a?task={task_id}&call={tool_call_id}", "T-1",
                "c-1")).isEqualTo("https://ui.example.com/a?task=T-1&call=c-1");
    }
}
