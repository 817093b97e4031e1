package io.actiongate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.sandbox.SandboxMcpServer.Fault;

/** The real {@code mcp} connector against the sandbox MCP server: one call per dispatch, outcomes, reconciliation. */
class SandboxMcpConnectorTest {

    private static final String POST = "notes/" + SandboxMcpServer.SEND_TOOL;
    private static final String INPUT = "{\"channel\":\"#launch\",\"text\":\"Release 4.2 is live\"}";

    private final SandboxMcpServer upstream = SandboxMcpServer.start();
    private ConnectorRegistry registry;

    @AfterEach
    void stop() {
        if (registry != null) {
            registry.close();
        }
        upstream.close();
    }

    private Connector connector(String... extra) {
        Map<String, String> config = new HashMap<>();
        config.put("connectors.mcp.upstreams", "notes");
        config.put("connectors.mcp.upstream.notes.url", upstream.url());
        config.put("connectors.mcp.upstream.notes.status-tool", SandboxMcpServer.STATUS_TOOL);
        // generous: on a loaded machine the session setup (initialize, tools/list) took over a second, which the
        // connector rightly reported as NOT_DISPATCHED; the one test about a slow upstream sets its own
        config.put("connectors.mcp.upstream.notes.response-timeout-ms", "10000");
        for (int i = 0; i < extra.length; i += 2) {
            config.put(extra[i], extra[i + 1]);
        }
        registry = ConnectorRegistry.load(config);
        return registry.find("mcp").orElseThrow();
    }

    private static DispatchRequest request(String key, String input) {
        return new DispatchRequest("T-1", "C-1", 1, key, "acme", "mcp", POST, SandboxMcpServer.SEND_TOOL, input,
                List.of(), Instant.parse("2030-01-01T00:00:00Z"), "sha256:abc", "D-1", "owner-1", "Tell #launch");
    }

    private static LookupRequest lookup(String key) {
        return new LookupRequest("T-1", "C-1", 1, key, "acme", "mcp", POST, INPUT);
    }

    @Test
    void shouldCallTheUpstreamsOwnToolOnceWithTheExplicitWrapper() {
        DispatchResult result = connector().dispatch(request("idem-1", INPUT));

        assertThat(result.status()).isEqualTo(DispatchResult.Status.SUCCEEDED);
        assertThat(result.providerReceiptId()).isEqualTo("note-1");
        assertThat(upstream.calls()).hasSize(1);
        Map<String, Object> arguments = upstream.calls().get(0).arguments();
        assertThat(arguments).containsOnlyKeys("input", "actiongate")
                .containsEntry("input", Map.of("channel", "#launch", "text", "Release 4.2 is live"));
        assertThat(arguments.get("actiongate")).isEqualTo(Map.of("action_key", "T-1/C-1", "idempotency_key", "idem-1",
                "attempt", 1, "action_digest", "sha256:abc", "decision_id", "D-1", "approved_by", "owner-1",
                "summary", "Tell #launch"));
        assertThat(upstream.calls().get(0).meta()).containsEntry(SandboxMcpServer.META_IDEMPOTENCY_KEY, "idem-1");
        assertThat(upstream.effect("idem-1")).contains("note-1");
    }

    @Test
    void shouldLogEveryPostThatReachedTheApplyStepEvenWhenItsKeyWasAppliedBefore(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path log = dir.resolve("mcp-effects.jsonl");
        try (SandboxMcpServer logged = SandboxMcpServer.start(0, log)) {
            Map<String, String> config = new HashMap<>();
            config.put("connectors.mcp.upstreams", "notes");
            config.put("connectors.mcp.upstream.notes.url", logged.url());
            registry = ConnectorRegistry.load(config);
            Connector mcp = registry.find("mcp").orElseThrow();
            mcp.dispatch(request("idem-1", INPUT));
            mcp.dispatch(request("idem-1", INPUT)); // the same key again: one effect, but a second apply

            List<String> lines = java.nio.file.Files.readAllLines(log);
            assertThat(lines).hasSize(2);
            assertThat(lines.get(0)).contains("\"idempotency_key\":\"idem-1\"", "\"action_key\":\"T-1/C-1\"",
                    "\"meta_action_key\":\"T-1/C-1\"", "\"new_effect\":true", "\"id\":\"note-1\"");
            assertThat(lines.get(1)).contains("\"new_effect\":false", "\"id\":\"note-1\"");
            assertThat(logged.applied()).isEqualTo(1);
        }
    }

    @Test
    void shouldSendTheUpstreamsCredentialFromItsSecretReferenceAndNeverShowIt(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        java.nio.file.Path secret = java.nio.file.Files.writeString(dir.resolve("notes-token"), "notes-s3cret-42\n");
        upstream.failNext(Fault.REJECT);

        DispatchResult result = connector("connectors.mcp.upstream.notes.credential", "file:" + secret)
                .dispatch(request("idem-1", INPUT));

        assertThat(upstream.lastAuthorization()).isEqualTo("Bearer notes-s3cret-42");
        assertThat(result.toString()).doesNotContain("notes-s3cret-42");
    }

    @Test
    void shouldSendTheBareInputAndTheKeyInMetaToAPlainUpstream() {
        DispatchResult result = connector("connectors.mcp.upstream.notes.wrapper", "plain")
                .dispatch(request("idem-1", INPUT));

        assertThat(result.status()).isEqualTo(DispatchResult.Status.SUCCEEDED);
        assertThat(upstream.calls().get(0).arguments()).isEqualTo(Map.of("channel", "#launch",
                "text", "Release 4.2 is live"));
        assertThat(upstream.calls().get(0).meta()).containsEntry(SandboxMcpServer.META_IDEMPOTENCY_KEY, "idem-1");
    }

    @Test
    void shouldMapIsErrorToFailedProviderRejectedWithRedactedText() {
        upstream.failNext(Fault.REJECT);

        DispatchResult result = connector().dispatch(request("idem-1", INPUT));

        assertThat(result.status()).isEqualTo(DispatchResult.Status.FAILED);
        assertThat(result.errorCode()).isEqualTo("PROVIDER_REJECTED");
        assertThat(result.errorDetail()).contains("the channel refused the post");
        assertThat(upstream.applied()).isZero();
    }

    @Test
    void shouldTreatAnAnswerOutsideTheOutputSchemaAsUnknownAndReconcileItThroughTheStatusTool() {
        Connector connector = connector();
        upstream.failNext(Fault.MALFORMED);

        DispatchResult result = connector.dispatch(request("idem-1", INPUT));
        LookupResult found = connector.lookup(lookup("idem-1"));

        assertThat(result.status()).isEqualTo(DispatchResult.Status.UNKNOWN);
        assertThat(result.errorDetail()).contains("outputSchema");
        assertThat(found.verdict()).isEqualTo(LookupResult.Verdict.EFFECT_CONFIRMED);
        assertThat(found.providerReceiptId()).isEqualTo("note-1");
        assertThat(upstream.calls()).hasSize(1);
    }

    @Test
    void shouldRequireTheOperatorsSuccessMemberBeforeSucceeded() {
        DispatchResult result = connector("connectors.mcp.upstream.notes.success-member", "url")
                .dispatch(request("idem-1", INPUT));

        assertThat(result.status()).isEqualTo(DispatchResult.Status.UNKNOWN);
        assertThat(result.errorDetail()).contains("'url'");
    }

    @Test
    void shouldTreatATimeoutAfterTheUpstreamAppliedAsUnknownThatTheStatusToolReconciles() {
        // a timeout well below the upstream's SLOW_MILLIS (3 s)
        Connector connector = connector("connectors.mcp.upstream.notes.response-timeout-ms", "1000");
        upstream.failNext(Fault.SLOW);

        DispatchResult result = connector.dispatch(request("idem-1", INPUT));
        LookupResult found = connector.lookup(lookup("idem-1"));

        assertThat(result.status()).isEqualTo(DispatchResult.Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.errorCode()).isEqualTo("RESPONSE_TIMEOUT");
        assertThat(found.verdict()).isEqualTo(LookupResult.Verdict.EFFECT_CONFIRMED);
        assertThat(upstream.calls()).hasSize(1);
        assertThat(upstream.applied()).isEqualTo(1);
    }

    @Test
    void shouldAnswerNoEffectForAKeyTheStatusToolNeverSawAndStillUnknownWithoutAStatusTool() {
        assertThat(connector().lookup(lookup("idem-never")).verdict()).isEqualTo(LookupResult.Verdict.NO_EFFECT);
        registry.close();

        Map<String, String> config = Map.of("connectors.mcp.upstreams", "notes",
                "connectors.mcp.upstream.notes.url", upstream.url());
        registry = ConnectorRegistry.load(config);
        assertThat(registry.find("mcp").orElseThrow().lookup(lookup("idem-never")).verdict())
                .isEqualTo(LookupResult.Verdict.STILL_UNKNOWN);
    }

    @Test
    void shouldRefuseAnInputOutsideTheToolsInputSchemaBeforeSending() {
        DispatchResult result = connector().dispatch(request("idem-1", "{\"channel\":\"#launch\"}"));

        assertThat(result.status()).isEqualTo(DispatchResult.Status.FAILED);
        assertThat(result.dispatched()).isFalse();
        assertThat(result.errorCode()).isEqualTo("SCHEMA_INVALID");
        assertThat(upstream.calls()).isEmpty();
    }

    @Test
    void shouldReportNotDispatchedWhenTheUpstreamCannotBeReached() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        DispatchResult result = connector("connectors.mcp.upstream.notes.url", "http://127.0.0.1:" + closed)
                .dispatch(request("idem-1", INPUT));

        assertThat(result.status()).isEqualTo(DispatchResult.Status.NOT_DISPATCHED);
        assertThat(result.dispatched()).isFalse();
    }

    @Test
    void shouldRefuseAToolTheUpstreamDoesNotOfferBeforeSending() {
        DispatchResult result = connector().dispatch(new DispatchRequest("T-1", "C-1", 1, "idem-1", "acme", "mcp",
                "notes/notes_delete_all", "notes_delete_all", INPUT, List.of(), Instant.parse("2030-01-01T00:00:00Z")));

        assertThat(result.status()).isEqualTo(DispatchResult.Status.FAILED);
        assertThat(result.errorCode()).isEqualTo("OPERATION_REFUSED");
        assertThat(upstream.calls()).isEmpty();
    }
}
