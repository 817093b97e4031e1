package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

import io.actiongate.sandbox.SandboxMcpServer;
import io.actiongate.sandbox.SandboxMcpServer.Fault;

/**
 * Every role of {@code dev} in process (gate, executor, reconciler, approval service) with the MCP gateway in front
 * of the sandbox MCP server: an approved {@code notes_post} runs on the MCP server itself, once, in the documented
 * wrapper, and every way the upstream can misbehave settles as docs/contract.md section 6 says.
 * System tier: every role of dev and the MCP gateway, end to end.
 */
@Tag("system")
class DevMcpUpstreamIT {

    @TempDir
    static Path dir;

    static DevStack stack;
    static DevEnvironment env;
    static McpSyncClient host;
    static String decide;

    @BeforeAll
    static void start() throws Exception {
        stack = new DevStack(Map.of(), false);
        DevMcpGateway gateway = new DevMcpGateway(() -> stack.approver().publicUrl() + "/review/{task_id}/{tool_call_id}",
                () -> stack.sandboxes().mcp(), stack::identityProvider);
        // a response timeout below the sandbox's SLOW answer, so that a late answer is a timeout after sending
        env = DevEnvironment.start(new DevEnvironment.Settings(0, dir.resolve("data"), Map.of("http.port", "0",
                "connectors.mcp.upstream.sandbox.response-timeout-ms", "1500")), List.of(stack, gateway));
        String printed = String.join("\n", env.hints()) + "\n";
        int at = printed.indexOf("MCP gateway: ") + "MCP gateway: ".length();
        String url = printed.substring(at, printed.indexOf(' ', at)).strip();
        String token = Files.readString(dir.resolve("data").resolve("secrets").resolve("mcp-host-token")).strip();
        int from = printed.indexOf("approve an action: ./actiongate ") + "approve an action: ./actiongate ".length();
        decide = printed.substring(from, printed.indexOf('\n', from)).strip();
        host = McpClient.sync(HttpClientStreamableHttpTransport.builder(url.substring(0, url.length() - "/mcp".length()))
                .addHttpRequestCustomizer((b, method, uri, body, ctx) -> b
                        .header("Authorization", "Bearer " + token).header("X-ActionGate-Task-Id", "T-1"))
                .build()).requestTimeout(Duration.ofSeconds(60)).enableCallToolSchemaCaching(true).build();
        host.initialize();
    }

    @AfterAll
    static void stop() {
        if (host != null) {
            host.closeGracefully();
        }
        if (env != null) {
            env.close();
        }
    }

    private static SandboxMcpServer upstream() {
        return stack.sandboxes().mcp();
    }

    private static McpSchema.CallToolResult post(String callId) {
        return host.callTool(McpSchema.CallToolRequest.builder(SandboxMcpServer.SEND_TOOL)
                .arguments(Map.of("channel", "project-launch", "text", "Update " + callId))
                .meta(Map.of("tool_call_id", callId)).build());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> state(McpSchema.CallToolResult result) {
        return (Map<String, Object>) result.structuredContent();
    }

    private static void approve(String callId) throws InterruptedException {
        // right after start the gate's store may still be rebalancing: decide then says 503, retry
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        CliRun run = CliRun.of(decide.replace(" CALL ", " " + callId + " ").split("\\s+"));
        while (run.exitCode() != 0 && run.err().contains("503") && System.nanoTime() < deadline) {
            Thread.sleep(500);
            run = CliRun.of(decide.replace(" CALL ", " " + callId + " ").split("\\s+"));
        }
        assertThat(run.exitCode()).as(run.err()).isZero();
    }

    @AfterEach
    void noFaultLeft() {
        upstream().failNext(null);
    }

    /** Calls again until the action is in {@code state}; the last answer. */
    private static McpSchema.CallToolResult await(String callId, String state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        McpSchema.CallToolResult last = post(callId);
        while (!state.equals(state(last).get("state")) && System.nanoTime() < deadline) {
            Thread.sleep(300);
            last = post(callId);
        }
        assertThat(state(last)).as("%s", last.content()).containsEntry("state", state);
        return last;
    }

    /**
     * Proposes, makes the upstream's next answer misbehave ({@code fault}, or none), approves and waits until the
     * action settles in {@code settled}; the last answer.
     */
    private static McpSchema.CallToolResult proposeApproveAndAwait(String callId, Fault fault, String settled)
            throws Exception {
        await(callId, "WAITING_APPROVAL");
        upstream().failNext(fault);
        approve(callId);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        McpSchema.CallToolResult last = post(callId);
        while (!settled.equals(state(last).get("state")) && System.nanoTime() < deadline) {
            Thread.sleep(300);
            last = post(callId);
        }
        assertThat(state(last)).as("%s", last.content()).containsEntry("state", settled);
        return last;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> wrappers(String callId) {
        return upstream().calls().stream().map(c -> (Map<String, Object>) c.arguments().get("actiongate"))
                .filter(w -> w != null && ("T-1/" + callId).equals(w.get("action_key"))).toList();
    }

    @Test
    void shouldRunTheApprovedCallOnTheMcpServerOnceInTheWrapperAndNothingOnRedeliveryOrASecondApproval()
            throws Exception {
        String digest = (String) state(await("it-ok", "WAITING_APPROVAL")).get("action_digest");
        McpSchema.CallToolResult done = proposeApproveAndAwait("it-ok", null, "SUCCEEDED");

        assertThat(done.isError()).isFalse();
        assertThat(state(done)).containsEntry("attempts", 1).containsKey("provider_receipt_id");
        assertThat(wrappers("it-ok")).singleElement().satisfies(w -> {
            assertThat(w).containsEntry("attempt", 1).containsEntry("action_digest", digest);
            assertThat((String) w.get("idempotency_key")).isNotBlank();
            // the approval the gate applied, and what the human read: the decision id, its approver, the summary
            assertThat((String) w.get("decision_id")).isNotBlank();
            assertThat(w).containsEntry("approved_by", DevStack.APPROVER_SUBJECT)
                    .containsEntry("summary", "Run the MCP tool " + SandboxMcpServer.SEND_TOOL
                            + " of sandbox with the input shown");
        });
        assertThat(upstream().effect((String) wrappers("it-ok").get(0).get("idempotency_key")))
                .contains((String) state(done).get("provider_receipt_id"));
        // the host redelivers; an approver approves once more: nothing runs again
        assertThat(state(post("it-ok"))).containsEntry("state", "SUCCEEDED");
        CliRun again = CliRun.of(decide.replace(" CALL ", " it-ok ").split("\\s+"));
        Thread.sleep(3_000);
        assertThat(state(post("it-ok"))).as(again.err()).containsEntry("state", "SUCCEEDED").containsEntry("attempts", 1);
        assertThat(wrappers("it-ok")).hasSize(1);
    }

    @Test
    void shouldReconcileAnAnswerOutsideTheOutputSchemaThroughTheStatusTool() throws Exception {
        McpSchema.CallToolResult done = proposeApproveAndAwait("it-malformed", Fault.MALFORMED, "SUCCEEDED");

        assertThat(wrappers("it-malformed")).as("UNKNOWN is never replayed").hasSize(1);
        assertThat(state(done)).containsEntry("attempts", 1);
    }

    @Test
    void shouldSettleAnIsErrorAnswerAsFailed() throws Exception {
        McpSchema.CallToolResult done = proposeApproveAndAwait("it-refused", Fault.REJECT, "FAILED");

        assertThat(done.isError()).isTrue();
        assertThat(state(done)).containsEntry("reason_code", "PROVIDER_REJECTED");
        assertThat(wrappers("it-refused")).hasSize(1);
    }

    @Test
    void shouldReconcileATimeoutAfterTheUpstreamAppliedAsSucceededWithoutReplaying() throws Exception {
        McpSchema.CallToolResult done = proposeApproveAndAwait("it-slow", Fault.SLOW, "SUCCEEDED");

        assertThat(wrappers("it-slow")).as("UNKNOWN is never replayed").hasSize(1);
        assertThat(state(done)).containsEntry("attempts", 1);
    }
}
