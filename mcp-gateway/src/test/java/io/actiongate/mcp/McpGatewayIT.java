package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

import io.actiongate.avro.ToolDescriptor;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.client.GateFixture;

/**
 * The gateway with the MCP SDK's own client, in front of a sandbox upstream MCP server, proposing to the real gate on
 * an embedded broker. The operator imported {@code lookup} and {@code send_email}; {@code peek} claims to be
 * read-only but was never imported.
 */
class McpGatewayIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final String TOKEN = "host-token-0123456789abcdef";
    /** A host of the same org whose profile is granted nothing. */
    private static final String UNGRANTED_TOKEN = "other-host-token-0123456789";
    /** What the upstream wants from the gateway (its secret reference is a file). */
    private static final String UPSTREAM_TOKEN = "upstream-token-abcdef";

    @TempDir
    static Path dir;

    static GateFixture gate;
    static SandboxMcpServer upstream;
    static McpGateway gateway;
    static McpSyncClient host;

    @BeforeAll
    static void start(TestInfo test) throws Exception {
        gate = new GateFixture(KAFKA, TestNames.topicPrefix(test), TestNames.applicationId(test), dir.resolve("state"));
        upstream = new SandboxMcpServer();
        Path tokens = Files.writeString(dir.resolve("tokens"),
                "# token principal org profile\n" + TOKEN + " user-1 " + GateFixture.ORG + " " + GateFixture.PROFILE
                        + "\n" + UNGRANTED_TOKEN + " user-2 " + GateFixture.ORG + " no-grant\n");
        Map<String, String> config = upstream.gatewayConfig(KAFKA.bootstrapServers(), gate.prefix());
        config.put(GatewayConfig.TOKENS_FILE_CONFIG, tokens.toString());
        config.put(GatewayConfig.UPSTREAM_PREFIX + "sandbox.credential",
                "file:" + Files.writeString(dir.resolve("upstream-token"), UPSTREAM_TOKEN + "\n"));
        GatewayConfig gatewayConfig = GatewayConfig.from(config);
        // the operator trusts two tools, and only those
        List<ToolDescriptor> imported = McpImport.run(gatewayConfig, "sandbox",
                Set.of(GateFixture.LOOKUP, GateFixture.SEND));
        assertThat(imported).extracting(d -> d.getToolName() + ":" + d.getApproval())
                .containsExactlyInAnyOrder("lookup:NONE", "send_email:HUMAN");
        gateway = McpGateway.start(gatewayConfig);
        host = client(TOKEN);
        host.initialize();
    }

    @AfterAll
    static void stop() throws Exception {
        if (host != null) {
            host.closeGracefully();
        }
        if (gateway != null) {
            gateway.close();
        }
        if (upstream != null) {
            upstream.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    private static McpSyncClient client(String token) {
        return client(token, GateFixture.TASK, false);
    }

    /** A host's client; {@code validating} checks every result against the tool's advertised outputSchema. */
    private static McpSyncClient client(String token, String task, boolean validating) {
        return McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + gateway.port())
                .endpoint(McpGateway.ENDPOINT)
                .addHttpRequestCustomizer((builder, method, uri, body, context) -> {
                    if (token != null) {
                        builder.header("Authorization", "Bearer " + token);
                    }
                    builder.header("X-ActionGate-Task-Id", task);
                })
                .build()).requestTimeout(Duration.ofSeconds(60)).enableCallToolSchemaCaching(validating).build();
    }

    private static java.net.http.HttpResponse<String> get(String path) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + gateway.port() + path)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    /** The JSON-RPC error a refused read answers, and that nothing reached the upstream. */
    private static void assertReadRefused(McpSyncClient client, Map<String, Object> arguments, String reasonCode) {
        int before = upstream.calls("lookup");
        assertThatThrownBy(() -> client.callTool(McpSchema.CallToolRequest.builder("lookup").arguments(arguments)
                .build()))
                .isInstanceOfSatisfying(io.modelcontextprotocol.spec.McpError.class, e -> {
                    assertThat(e.getJsonRpcError().code()).isEqualTo(GatewayTools.READ_REFUSED_CODE);
                    assertThat(e.getJsonRpcError().message()).startsWith("read refused: " + reasonCode);
                    assertThat(e.getJsonRpcError().data()).isEqualTo(Map.of("reason_code", reasonCode,
                            "reason", ((Map<?, ?>) e.getJsonRpcError().data()).get("reason")));
                });
        assertThat(upstream.calls("lookup")).as("nothing reached the upstream").isEqualTo(before);
    }

    @Test
    void shouldRefuseAReadCarryingCredentialMaterialBeforeTheUpstreamSeesIt() {
        assertReadRefused(host, Map.of("q", "AKIAIOSFODNN7EXAMPLE"), "CREDENTIAL_MATERIAL");
    }

    @Test
    void shouldRefuseAReadAboveTheToolsMaxInputBytes() {
        assertReadRefused(host, Map.of("q", "disk ".repeat(4_000)), "INPUT_TOO_LARGE");
    }

    @Test
    void shouldRefuseReadsOfACancelledTask() throws Exception {
        gate.policy("task:T-cancelled", "task", io.actiongate.avro.TaskState.newBuilder().setTaskId("T-cancelled")
                .setOrgId(GateFixture.ORG).setVersion(2).setStatus(io.actiongate.avro.LifecycleStatus.CANCELLED).build());
        McpSyncClient cancelled = client(TOKEN, "T-cancelled", false);
        try {
            cancelled.initialize();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertReadRefused(cancelled, Map.of("q", "disk"), "TASK_CANCELLED"));
        } finally {
            cancelled.closeGracefully();
        }
    }

    @Test
    void shouldLetAValidatingClientReadEveryAnswerOfAGatedToolThatDeclaresAnOutputSchema() {
        McpSyncClient validating = client(TOKEN, GateFixture.TASK, true);
        try {
            validating.initialize();
            McpSchema.Tool send = validating.listTools().tools().stream()
                    .filter(t -> t.name().equals("send_email")).findFirst().orElseThrow();
            assertThat(send.outputSchema()).isEqualTo(GatewayTools.STATE_SCHEMA);
            assertThat(send.meta()).containsEntry(GatewayTools.UPSTREAM_OUTPUT_META, SandboxMcpServer.OUTPUT_SCHEMA);
            McpSchema.CallToolResult waiting = validating.callTool(McpSchema.CallToolRequest.builder("send_email")
                    .arguments(Map.of("to", "ops@example.com", "body", "schema"))
                    .meta(Map.of("tool_call_id", "m-schema-1")).build());
            assertThat(waiting.isError()).as("%s", waiting.content()).isFalse();
            assertThat(state(waiting)).containsEntry("state", "WAITING_APPROVAL").containsKey("review_url");
        } finally {
            validating.closeGracefully();
        }
    }

    @Test
    void shouldAnswerAConflictAsARefusedProposalWithIsError() {
        assertThat(state(call("send_email", "m-conflict-1", Map.of("to", "a@example.com", "body", "one"))))
                .containsEntry("state", "WAITING_APPROVAL");
        McpSchema.CallToolResult conflict = call("send_email", "m-conflict-1",
                Map.of("to", "a@example.com", "body", "another"));
        assertThat(conflict.isError()).isTrue();
        assertThat(state(conflict)).containsEntry("reason_code", "IDENTITY_CONFLICT");
        assertThat((String) state(conflict).get("detail")).startsWith("proposal refused: identity conflict");
    }

    @Test
    void shouldServeHealthAndMetricsAndOnlyJsonRpcErrors() throws Exception {
        assertThat(get("/health/live").statusCode()).isEqualTo(200);
        java.net.http.HttpResponse<String> ready = get("/health/ready");
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        // what a node running this role reports (its readiness and failure include the gateway)
        assertThat(gateway.ready()).isTrue();
        assertThat(gateway.failure()).isNull();
        call("lookup", null, Map.of("q", "metrics"));
        assertThat(get("/metrics").body()).contains("actiongate_mcp_gateway_calls_total{outcome=\"read\",tool=\"lookup\"}")
                .contains("actiongate_mcp_gateway_upstream_latency_seconds");
        // a tools/list without a session: the SDK would answer its exception, stack trace and all
        java.net.http.HttpResponse<String> noSession = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + gateway.port()
                                + McpGateway.ENDPOINT))
                        .header("Authorization", "Bearer " + TOKEN)
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json, text/event-stream")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"))
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(noSession.statusCode()).isGreaterThanOrEqualTo(400);
        assertThat(noSession.body()).startsWith("{\"jsonrpc\":\"2.0\"").doesNotContain("io.modelcontextprotocol")
                .doesNotContain("stackTrace").doesNotContain("at java.");
        java.net.http.HttpResponse<String> missing = get("/nowhere");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).startsWith("{\"jsonrpc\":\"2.0\"").doesNotContain("<html");
    }

    private static McpSchema.CallToolResult call(String tool, String callId, Map<String, Object> arguments) {
        return host.callTool(McpSchema.CallToolRequest.builder(tool).arguments(arguments)
                .meta(callId == null ? null : Map.of("tool_call_id", callId)).build());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> state(McpSchema.CallToolResult result) {
        assertThat(result.structuredContent()).isInstanceOf(Map.class);
        return (Map<String, Object>) result.structuredContent();
    }

    @Test
    void shouldListTheUpstreamTools() {
        assertThat(host.listTools().tools()).extracting(McpSchema.Tool::name)
                .containsExactlyInAnyOrder("lookup", "send_email", "peek");
    }

    @Test
    void shouldPassATrustedReadStraightThroughMarkedAsData() {
        int before = upstream.calls("lookup");
        McpSchema.CallToolResult result = call("lookup", null, Map.of("q", "disk"));
        assertThat(result.isError()).isFalse();
        assertThat(result.meta()).containsEntry(GatewayTools.DATA_META, true);
        assertThat(result.content()).singleElement().isInstanceOfSatisfying(McpSchema.TextContent.class,
                t -> assertThat(t.text()).isEqualTo("notes about disk"));
        assertThat(upstream.calls("lookup")).isEqualTo(before + 1);
        assertThat(upstream.lastAuthorization()).isEqualTo("Bearer " + UPSTREAM_TOKEN);
    }

    @Test
    void shouldWaitForApprovalThenReturnTheReceiptWithOneEffectForTheSameCallId() throws Exception {
        Map<String, Object> input = Map.of("to", "ops@example.com", "body", "disk is full");
        Map<String, Object> first = state(call("send_email", "m-send-1", input));
        assertThat(first).containsEntry("state", "WAITING_APPROVAL")
                .containsEntry("action_key", "T-1/m-send-1")
                .containsEntry("review_url", "http://review.example/actions/T-1%2Fm-send-1");
        // the host retries the same call: the current state, no second action
        Map<String, Object> again = state(call("send_email", "m-send-1", input));
        assertThat(again).containsEntry("state", "WAITING_APPROVAL")
                .containsEntry("action_digest", first.get("action_digest"));

        gate.approve(GateFixture.TASK, "m-send-1", (String) first.get("action_digest"));
        gate.succeed(GateFixture.TASK, "m-send-1", 1);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(90)).until(() ->
                "SUCCEEDED".equals(state(call("send_email", "m-send-1", input)).get("state")));
        Map<String, Object> settled = state(call("send_email", "m-send-1", input));
        assertThat(settled).containsEntry("state", "SUCCEEDED").containsEntry("provider_receipt_id",
                "prov-m-send-1").containsEntry("attempts", 1);
        assertThat(gate.attempts("m-send-1")).hasSize(1);
        assertThat(upstream.calls("send_email")).as("an effect never passes straight upstream").isZero();
    }

    @Test
    void shouldNeverLetUntrustedAnnotationsSkipApproval() {
        McpSchema.CallToolResult result = call("peek", "m-peek-1", Map.of("q", "secrets"));
        assertThat(result.meta() == null ? Map.of() : result.meta()).doesNotContainKey(GatewayTools.DATA_META);
        assertThat(state(result)).containsEntry("state", "REJECTED")
                .containsEntry("reason_code", "UNKNOWN_PROVIDER_METHOD")
                .containsEntry("detail", "proposal refused: UNKNOWN_PROVIDER_METHOD");
        assertThat(result.isError()).as("a refused proposal is an error answer").isTrue();
        assertThat(upstream.calls("peek")).isZero();
    }

    @Test
    void shouldSendAReadOfAHostWithoutAGrantToTheGateInstead() {
        McpSyncClient ungranted = client(UNGRANTED_TOKEN);
        try {
            ungranted.initialize();
            int before = upstream.calls("lookup");
            McpSchema.CallToolResult result = ungranted.callTool(McpSchema.CallToolRequest.builder("lookup")
                    .arguments(Map.of("q", "disk")).meta(Map.of("tool_call_id", "m-ungranted-1")).build());
            assertThat(state(result)).containsEntry("state", "REJECTED")
                    .containsEntry("reason_code", "PROFILE_NOT_GRANTED");
            assertThat(upstream.calls("lookup")).isEqualTo(before);
        } finally {
            ungranted.closeGracefully();
        }
    }

    @Test
    void shouldRefuseAnUnauthenticatedHost() throws Exception {
        int lookupsBefore = upstream.calls("lookup");
        McpSyncClient anonymous = client(null);
        assertThatThrownBy(anonymous::initialize).isNotNull();
        McpSyncClient forged = client("not-the-token-0123456789");
        assertThatThrownBy(forged::initialize).isNotNull();
        // a raw tools/call without a token never reaches the MCP endpoint
        java.net.http.HttpResponse<String> raw = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + gateway.port()
                                + McpGateway.ENDPOINT))
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json, text/event-stream")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,"
                                + "\"method\":\"tools/call\",\"params\":{\"name\":\"lookup\"}}"))
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(raw.statusCode()).isEqualTo(401);
        assertThat(upstream.calls("lookup")).as("nothing reached upstream for the refused hosts")
                .isEqualTo(lookupsBefore);
    }

    @Test
    void shouldNeverEchoACredentialInAnyRefusal() throws Exception {
        // a token where a tool name, an argument, a member name, a task id or the JSON itself
        // belongs comes back in no answer and no log line
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
                new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
                .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        List<String> answers = new java.util.ArrayList<>();
        try {
            for (String token : io.actiongate.testing.TokenShapes.all().values()) {
                answers.add(refusal(() -> host.callTool(McpSchema.CallToolRequest.builder(token)
                        .arguments(Map.of("q", "x")).build())));
                answers.add(refusal(() -> host.callTool(McpSchema.CallToolRequest.builder("lookup")
                        .arguments(Map.of("q", token)).build())));
                answers.add(refusal(() -> host.callTool(McpSchema.CallToolRequest.builder("lookup")
                        .arguments(Map.of(token, "x")).build())));
                answers.add(refusal(() -> host.callTool(McpSchema.CallToolRequest.builder("send_email")
                        .arguments(Map.of("to", token, token, 1)).build())));
                if (token.matches("[A-Za-z0-9._:-]{1,128}")) {
                    McpSyncClient other = client(TOKEN, token, false);
                    answers.add(refusal(() -> other.callTool(McpSchema.CallToolRequest.builder("send_email")
                            .arguments(Map.of("to", "ops@example.com")).build())));
                    other.closeGracefully();
                }
                for (String body : List.of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":" + token + "}",
                        "{\"jsonrpc\":\"2.0\",\"id\":" + JSON_QUOTE.apply(token) + ",\"method\":\"tools/call\","
                                + "\"params\":{\"name\":" + JSON_QUOTE.apply(token) + "}}", token)) {
                    answers.add(inSession(body));
                }
                for (String body : List.of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":" + token + "}",
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\""
                                + token + "\"}}", token)) {
                    java.net.http.HttpResponse<String> raw = java.net.http.HttpClient.newHttpClient().send(
                            java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                                            + gateway.port() + McpGateway.ENDPOINT))
                                    .header("Authorization", "Bearer " + TOKEN)
                                    .header("Content-Type", "application/json")
                                    .header("Accept", "application/json, text/event-stream")
                                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
                    answers.add(raw.statusCode() + " " + raw.headers().map() + " " + raw.body());
                }
            }
        } finally {
            root.detachAppender(logs);
        }
        assertThat(answers).hasSizeGreaterThan(20).noneMatch(io.actiongate.testing.TokenShapes::leaks)
                .anyMatch(a -> a.contains("Unknown tool")).anyMatch(a -> a.contains("CREDENTIAL_MATERIAL"))
                .anyMatch(a -> a.startsWith("400 ") && a.contains("-32700") && a.contains("not JSON: "));
        assertThat(logs.list).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                .noneMatch(io.actiongate.testing.TokenShapes::leaks);
        assertThat(logs.list).extracting(e -> e.getThrowableProxy() == null ? null
                : e.getThrowableProxy().getMessage()).noneMatch(io.actiongate.testing.TokenShapes::leaks);
    }

    private static final java.util.function.UnaryOperator<String> JSON_QUOTE = t -> "\""
            + t.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";

    /** {@code body} posted in a session of its own (initialized first), the answer as status, headers and body. */
    private static String inSession(String body) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.URI endpoint = java.net.URI.create("http://127.0.0.1:" + gateway.port() + McpGateway.ENDPOINT);
        java.net.http.HttpResponse<String> init = http.send(java.net.http.HttpRequest.newBuilder(endpoint)
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":0,"
                        + "\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow(() ->
                new AssertionError("no session: " + init.statusCode() + " " + init.body()));
        java.net.http.HttpResponse<String> raw = http.send(java.net.http.HttpRequest.newBuilder(endpoint)
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("Mcp-Session-Id", session)
                .header("Mcp-Protocol-Version", "2025-06-18")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        return raw.statusCode() + " " + raw.headers().map() + " " + raw.body();
    }

    /** What a call answered: its result as text, or the JSON-RPC error it raised. */
    private static String refusal(java.util.concurrent.Callable<McpSchema.CallToolResult> call) {
        try {
            return String.valueOf(call.call());
        } catch (io.modelcontextprotocol.spec.McpError e) {
            return e.getMessage() + " " + e.getJsonRpcError();
        } catch (Exception e) {
            return e.toString();
        }
    }
}
