package io.actiongate.connector.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.testing.TestContext;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

/** The mcp connector's pure parts: settings, classification and what each answer means. */
class McpConnectorTest {

    private static final Map<String, Object> OUTPUT_SCHEMA = Map.of("type", "object", "required", List.of("id"),
            "properties", Map.of("id", Map.of("type", "string")));

    private final McpOutcomes outcomes = new McpOutcomes(new DefaultJsonSchemaValidator(), List.of("s3cr3t-token"));

    private static TestContext context() {
        return TestContext.of(Map.of("upstreams", "notes", "upstream.notes.url", "http://127.0.0.1:9",
                "upstream.notes.credential", "env:NOTES_TOKEN"), Map.of("env:NOTES_TOKEN", "s3cr3t-token"));
    }

    private static McpSchema.CallToolResult result(boolean isError, Object structured, String text) {
        return new McpSchema.CallToolResult(List.of(McpSchema.TextContent.builder(text).build()), isError, structured,
                null);
    }

    @Test
    void shouldClassifyAToolOfAConfiguredUpstreamAsAnEffectAndAnythingElseAsUnsupported() {
        McpClassifier classifier = new McpClassifier(McpSettings.from(context(), false));

        assertThat(classifier.classify("notes/notes_post", "{}").kind()).isEqualTo(Classification.Kind.EFFECT);
        assertThat(classifier.classify("notes/notes_lookup", "{}").kind()).isEqualTo(Classification.Kind.EFFECT);
        assertThat(classifier.classify("other/notes_post", "{}").kind()).isEqualTo(Classification.Kind.UNSUPPORTED);
        assertThat(classifier.classify("notes_post", "{}").kind()).isEqualTo(Classification.Kind.UNSUPPORTED);
        assertThat(classifier.classify("notes/a b", "{}").kind()).isEqualTo(Classification.Kind.UNSUPPORTED);
        assertThat(classifier.classify(null, null).kind()).isEqualTo(Classification.Kind.UNSUPPORTED);
    }

    @Test
    void shouldValidateOneJsonObjectWithinTheSizeBound() {
        McpClassifier classifier = new McpClassifier(McpSettings.from(
                context().with("max-input-bytes", "32"), false));

        assertThat(classifier.validate("notes/notes_post", "{\"a\":1}").valid()).isTrue();
        assertThat(classifier.validate("notes/notes_post", "[1]").valid()).isFalse();
        assertThat(classifier.validate("notes/notes_post", "not json").valid()).isFalse();
        assertThat(classifier.validate("notes/notes_post", "{\"a\":\"" + "x".repeat(40) + "\"}").violation())
                .contains("32 bytes");
    }

    @Test
    void shouldBuildTheClassifierWithoutReadingTheCredential() {
        ConnectorContext noSecrets = ConnectorContext.withoutCredentials(context().settings());

        assertThat(new McpConnectorFactory().classifier(noSecrets).classify("notes/notes_post", "{}").isAllowed())
                .isTrue();
        assertThatThrownBy(() -> new McpConnectorFactory().create(noSecrets)).isInstanceOf(RuntimeException.class);
    }

    @Test
    void shouldRefuseBadSettingsNamingTheSetting() {
        assertThatThrownBy(() -> McpSettings.from(TestContext.of(Map.of(), Map.of()), false))
                .hasMessageContaining("upstreams");
        assertThatThrownBy(() -> McpSettings.from(context().with("upstream.notes.url", "ftp://x"), false))
                .hasMessageContaining("upstream.notes.url");
        assertThatThrownBy(() -> McpSettings.from(context().with("upstream.notes.wrapper", "both"), false))
                .hasMessageContaining("upstream.notes.wrapper");
        assertThatThrownBy(() -> McpSettings.from(context().with("upstream.notes.status-tool", "a b"), false))
                .hasMessageContaining("status-tool");
    }

    @Test
    void shouldSucceedOnlyWithStructuredContentThatValidatesAgainstTheOutputSchema() {
        assertThat(outcomes.forResult(result(false, Map.of("id", "n-1"), "ok"), OUTPUT_SCHEMA, null))
                .satisfies(r -> {
                    assertThat(r.status()).isEqualTo(DispatchResult.Status.SUCCEEDED);
                    assertThat(r.providerReceiptId()).isEqualTo("n-1");
                });
        assertThat(outcomes.forResult(result(false, Map.of("id", 7), "ok"), OUTPUT_SCHEMA, null).status())
                .isEqualTo(DispatchResult.Status.UNKNOWN);
        assertThat(outcomes.forResult(result(false, null, "ok"), OUTPUT_SCHEMA, null).status())
                .isEqualTo(DispatchResult.Status.UNKNOWN);
    }

    @Test
    void shouldRequireTheConfiguredSuccessMember() {
        assertThat(outcomes.forResult(result(false, Map.of("url", "u"), "ok"), null, "id").status())
                .isEqualTo(DispatchResult.Status.UNKNOWN);
        assertThat(outcomes.forResult(result(false, Map.of("id", ""), "ok"), null, "id").status())
                .isEqualTo(DispatchResult.Status.UNKNOWN);
        assertThat(outcomes.forResult(result(false, Map.of("id", "n-2"), "ok"), null, "id").status())
                .isEqualTo(DispatchResult.Status.SUCCEEDED);
        assertThat(outcomes.forResult(result(false, null, "posted"), null, null).status())
                .isEqualTo(DispatchResult.Status.SUCCEEDED);
    }

    @Test
    void shouldMapIsErrorToFailedAndRedactSecretsInItsText() {
        DispatchResult r = outcomes.forResult(result(true, null, "denied for token s3cr3t-token, Bearer abc.def"),
                null, null);

        assertThat(r.status()).isEqualTo(DispatchResult.Status.FAILED);
        assertThat(r.errorCode()).isEqualTo("PROVIDER_REJECTED");
        assertThat(r.errorDetail()).contains("denied").doesNotContain("s3cr3t-token").doesNotContain("abc.def");
    }

    @Test
    void shouldNeverCallAFailureAfterSendingAnythingButUnknownOrAnExplicitRefusal() {
        assertThat(outcomes.forFailure(new RuntimeException(new ConnectException("refused")), false).status())
                .isEqualTo(DispatchResult.Status.NOT_DISPATCHED);
        assertThat(outcomes.forFailure(new IllegalStateException("session lost"), false).status())
                .isEqualTo(DispatchResult.Status.NOT_DISPATCHED);
        assertThat(outcomes.forFailure(new RuntimeException(new ConnectException("refused")), true).status())
                .isEqualTo(DispatchResult.Status.NOT_DISPATCHED);
        assertThat(outcomes.forFailure(new RuntimeException(new TimeoutException()), true))
                .satisfies(r -> {
                    assertThat(r.status()).isEqualTo(DispatchResult.Status.UNKNOWN);
                    assertThat(r.errorCode()).isEqualTo("RESPONSE_TIMEOUT");
                });
        assertThat(outcomes.forFailure(new IllegalStateException("stream reset"), true).status())
                .isEqualTo(DispatchResult.Status.UNKNOWN);
        assertThat(outcomes.forFailure(McpError.builder(-32602).message("Unknown tool").build(), true).status())
                .isEqualTo(DispatchResult.Status.FAILED);
        assertThat(outcomes.forFailure(McpError.builder(-32603).message("boom").build(), true).status())
                .isEqualTo(DispatchResult.Status.UNKNOWN);
    }

    @Test
    void shouldReadTheStatusToolsAnswer() {
        assertThat(outcomes.forStatus(result(false, Map.of("status", "applied", "id", "n-1"), ""), null))
                .satisfies(r -> {
                    assertThat(r.verdict()).isEqualTo(LookupResult.Verdict.EFFECT_CONFIRMED);
                    assertThat(r.providerReceiptId()).isEqualTo("n-1");
                });
        assertThat(outcomes.forStatus(result(false, null, "{\"status\":\"not_applied\"}"), null).verdict())
                .isEqualTo(LookupResult.Verdict.NO_EFFECT);
        assertThat(outcomes.forStatus(result(false, Map.of("status", "pending"), ""), null).verdict())
                .isEqualTo(LookupResult.Verdict.STILL_UNKNOWN);
        assertThat(outcomes.forStatus(result(true, Map.of("status", "applied"), ""), null).verdict())
                .isEqualTo(LookupResult.Verdict.STILL_UNKNOWN);
    }
}
