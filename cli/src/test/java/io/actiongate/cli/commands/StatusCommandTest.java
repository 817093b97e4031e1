package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.http.GateHttpServer;
import io.actiongate.http.HttpSecurity;
import io.actiongate.http.HttpServerConfig;

class StatusCommandTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static ObjectNode state() throws Exception {
        return (ObjectNode) MAPPER.readTree("""
                {"task_id": "T-1", "tool_call_id": "c-1", "status": "UNKNOWN", "reason_code": null,
                 "tool_name": "send_email", "provider": "webhook", "operation": "send_email",
                 "action_digest": "sha256:%s", "input_digest": "sha256:%s",
                 "attempts": [{"attempt": 1, "status": "UNKNOWN", "dispatched": true, "http_status": 503,
                               "error_code": "TIMEOUT"}]}
                """.formatted("a".repeat(64), "b".repeat(64)));
    }

    @Test
    void shouldPrintAHumanReadableSummary() throws Exception {
        try (GateHttpServer gate = DecideCommandTest.gateKnowing(state())) {
            Cli.Result result = Cli.run("status", "T-1", "c-1", "--gate-url", "http://127.0.0.1:" + gate.port());

            assertThat(result.exitCode()).isZero();
            assertThat(result.out())
                    .containsPattern("action:\\s+T-1/c-1")
                    .containsPattern("status:\\s+UNKNOWN")
                    .containsPattern("reason_code:\\s+-")
                    .containsPattern("action_digest:\\s+sha256:a{64}")
                    .containsPattern("attempts:\\s+1")
                    .contains("#1 UNKNOWN dispatched=true http=503 error=TIMEOUT");
        }
    }

    @Test
    void shouldPrintTheRawJsonWithJson() throws Exception {
        try (GateHttpServer gate = DecideCommandTest.gateKnowing(state())) {
            Cli.Result result = Cli.run("status", "T-1", "c-1", "--json", "--gate-url",
                    "http://127.0.0.1:" + gate.port() + "/");

            assertThat(result.exitCode()).isZero();
            assertThat(MAPPER.readTree(result.out())).isEqualTo(state());
        }
    }

    @Test
    void shouldPresentTheTokenFromATokenFileToAGateThatRequiresOne(@TempDir Path dir) throws Exception {
        Path tokens = Files.writeString(dir.resolve("gate-tokens"), "s3cret-token-for-the-cli\n");
        HttpServerConfig config = HttpServerConfig.loopbackEphemeral()
                .withSecurity(HttpSecurity.REQUIRED.withTokensFile(tokens));
        try (GateHttpServer gate = DecideCommandTest.gateKnowing(state(), config)) {
            String url = "http://127.0.0.1:" + gate.port();
            Cli.Result without = Cli.run("status", "T-1", "c-1", "--gate-url", url);
            assertThat(without.exitCode()).isEqualTo(1);
            assertThat(without.err()).contains("HTTP 401").contains("--token-file").hasLineCount(1);

            Cli.Result wrong = Cli.run("status", "T-1", "c-1", "--gate-url", url, "--token", "guess");
            assertThat(wrong.exitCode()).isEqualTo(1);
            assertThat(wrong.err()).contains("not accepted").doesNotContain("guess");

            Cli.Result with = Cli.run("status", "T-1", "c-1", "--gate-url", url, "--token-file", tokens.toString());
            assertThat(with.exitCode()).isZero();
            assertThat(with.out()).containsPattern("status:\\s+UNKNOWN");
        }
    }

    @Test
    void shouldExitThreeForAnUnknownAction() {
        try (GateHttpServer gate = DecideCommandTest.gateKnowing(null)) {
            Cli.Result result = Cli.run("status", "T-1", "c-9", "--gate-url", "http://127.0.0.1:" + gate.port());

            assertThat(result.exitCode()).isEqualTo(3);
            assertThat(result.err()).isEqualTo("error: no such action: T-1/c-9\n");
        }
    }

    @Test
    void shouldFailWithOneLineWhenTheGateIsUnreachable() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }

        Cli.Result result = Cli.run("status", "T-1", "c-1", "--gate-url", "http://127.0.0.1:" + port);

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err())
                .startsWith("error: cannot reach the gate at http://127.0.0.1:" + port + ": connection refused")
                .hasLineCount(1);
    }

    @Test
    void shouldRejectANonHttpGateUrl() {
        Cli.Result result = Cli.run("status", "T-1", "c-1", "--gate-url", "ftp://gate");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("error: gate URL must start with http://");
    }
}
