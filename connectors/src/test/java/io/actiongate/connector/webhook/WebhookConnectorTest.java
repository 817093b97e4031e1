package io.actiongate.connector.webhook;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.DispatchResult.Status;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.LookupResult.Verdict;
import io.actiongate.connector.spi.Tracing;
import io.actiongate.connector.testing.LocalHttpServer;
import io.actiongate.connector.testing.LogCapture;
import io.actiongate.connector.testing.Requests;
import io.actiongate.connector.testing.TestContext;
import io.opentelemetry.api.trace.SpanKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WebhookConnectorTest {

    static final String TOKEN = "s3cr3t-webhook-token-value";
    static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");
    static final String INPUT = "{\"to\":\"ops\",\"text\":\"restart done\"}";

    private final LocalHttpServer server = new LocalHttpServer();

    @AfterEach
    void stop() {
        server.close();
    }

    private WebhookConnector connector(Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(Map.of(
                "base-url", server.baseUrl() + "/hooks/",
                "operations", "notify, open_ticket",
                "read-operations", "status",
                "credential", "env:WEBHOOK_TOKEN",
                "response-timeout-ms", "5000",
                "connect-timeout-ms", "3000",
                "retry-after-cap-seconds", "600"));
        settings.putAll(extra);
        WebhookSettings parsed = WebhookSettings.from(TestContext.of(settings, Map.of("env:WEBHOOK_TOKEN", TOKEN)));
        return new WebhookConnector(parsed, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private WebhookConnector connector() {
        return connector(Map.of());
    }

    private DispatchResult dispatch(WebhookConnector connector) {
        return connector.dispatch(Requests.dispatch("webhook", "notify", INPUT, "key-123"));
    }

    @Test
    void shouldPostInputWithProtocolHeadersAndBearerCredential() {
        server.answer(200, Map.of(), "{\"status\":\"applied\",\"id\":\"rcpt-9\"}");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.SUCCEEDED);
        assertThat(result.providerReceiptId()).isEqualTo("rcpt-9");
        assertThat(result.httpStatus()).isEqualTo(200);
        assertThat(server.requests()).singleElement().satisfies(r -> {
            assertThat(r.method()).isEqualTo("POST");
            assertThat(r.path()).isEqualTo("/hooks/notify");
            assertThat(r.body()).isEqualTo(INPUT);
            assertThat(r.header("Idempotency-Key")).isEqualTo("key-123");
            assertThat(r.header("Content-Type")).isEqualTo("application/json");
            assertThat(r.header("X-ActionGate-Action")).isEqualTo("T-1/C-1");
            assertThat(r.header("Authorization")).isEqualTo("Bearer " + TOKEN);
        });
    }

    @Test
    void shouldSendCredentialInConfiguredHeaderWithoutScheme() {
        dispatch(connector(Map.of("credential-header", "X-Api-Key")));

        assertThat(server.requests().get(0).header("X-Api-Key")).isEqualTo(TOKEN);
        assertThat(server.requests().get(0).header("Authorization")).isNull();
    }

    @Test
    void shouldKeepUuidReceiptIds() {
        server.answer(201, Map.of(), "{\"status\":\"applied\",\"id\":\"123e4567-e89b-12d3-a456-426614174000\"}");

        assertThat(dispatch(connector()).providerReceiptId()).isEqualTo("123e4567-e89b-12d3-a456-426614174000");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            "204 | ''",
            "200 | '{}'",
            "200 | '<html>ok</html>'",
            "200 | '{\"id\":\"rcpt-1\"}'",
            "202 | '{\"status\":\"queued\",\"id\":\"rcpt-1\"}'",
            "200 | '{\"status\":\"applied\"}'",
            "200 | '{\"status\":\"applied\",\"id\":17}'",
            "200 | '[{\"status\":\"applied\",\"id\":\"rcpt-1\"}]'"})
    void shouldCallA2xxWithoutTheDocumentedBodyUnknownNeverSucceeded(int status, String body) {
        server.answer(status, Map.of(), body);

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.UNEXPECTED_RESPONSE);
        assertThat(result.providerReceiptId()).isNull();
        assertThat(result.httpStatus()).isEqualTo(status);
    }

    @ParameterizedTest
    @ValueSource(strings = {"has space", "-leading-dash", "semi;colon", "slash/id", ""})
    void shouldNotCopyAReceiptIdThatIsNotOfTheDocumentedForm(String id) {
        server.answer(200, Map.of(), "{\"status\":\"applied\",\"id\":\"" + id + "\"}");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.SUCCEEDED);
        assertThat(result.providerReceiptId()).isNull();
    }

    @Test
    void shouldConfirmALookupButNotCopyAnIdOfTheWrongForm() {
        server.answer(200, Map.of(), "{\"status\":\"applied\",\"id\":\"x y\"}");

        LookupResult result = connector().lookup(Requests.lookup("webhook", "notify", "key-123", null));

        assertThat(result.verdict()).isEqualTo(LookupResult.Verdict.EFFECT_CONFIRMED);
        assertThat(result.providerReceiptId()).isNull();
    }

    @Test
    void shouldRetryAtDeltaSecondsOn429() {
        server.answer(429, Map.of("Retry-After", "2"), "");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.RETRYABLE);
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.RATE_LIMITED);
        assertThat(result.retryAt()).isEqualTo(NOW.plusSeconds(2));
        assertThat(result.httpStatus()).isEqualTo(429);
    }

    @Test
    void shouldRetryAtHttpDateOn429() {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(NOW.plusSeconds(90).atOffset(ZoneOffset.UTC));
        server.answer(429, Map.of("Retry-After", date), "");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.RETRYABLE);
        assertThat(result.retryAt()).isEqualTo(NOW.plusSeconds(90));
    }

    @Test
    void shouldRetryAfterDefaultDelayWhen429HasNoRetryAfter() {
        server.answer(429, Map.of(), "");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.RETRYABLE);
        assertThat(result.retryAt()).isEqualTo(NOW.plusSeconds(1));
    }

    @Test
    void shouldFailRateLimitedWhenRetryAfterExceedsCap() {
        server.answer(429, Map.of("Retry-After", "601"), "");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.RATE_LIMITED);
        assertThat(result.retryAt()).isNull();
    }

    @Test
    void shouldFailProviderRejectedOnOther4xxWithRedactedBoundedDetail() {
        server.answer(422, Map.of(), "{\"error\":\"bad input\",\"echo\":\"Bearer " + TOKEN + "\",\"pad\":\""
                + "x ".repeat(500) + "\"}");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.PROVIDER_REJECTED);
        assertThat(result.httpStatus()).isEqualTo(422);
        assertThat(result.errorDetail()).contains("422").contains("bad input").doesNotContain(TOKEN);
        assertThat(result.errorDetail().length()).isLessThan(200);
    }

    @Test
    void shouldReadOnlyABoundedPrefixOfHugeBodies() {
        server.answer(400, Map.of(), "{\"error\":\"too big\",\"pad\":\"" + "y".repeat(4 * 1024 * 1024) + "\"}");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.errorDetail()).contains("too big").hasSizeLessThan(200);
    }

    @Test
    void shouldBeUnknownOn5xx() {
        server.answer(503, Map.of(), "down");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.PROVIDER_ERROR);
    }

    @Test
    void shouldBeUnknownOnRedirectBecauseItIsNotFollowed() {
        server.answer(303, Map.of("Location", "/elsewhere"), "");

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void shouldBeRetryableAndNotDispatchedWhenConnectionRefused() {
        WebhookConnector connector = connector(Map.of("base-url", "http://127.0.0.1:" + LocalHttpServer.closedPort()));

        DispatchResult result = dispatch(connector);

        assertThat(result.status()).isEqualTo(Status.RETRYABLE);
        assertThat(result.dispatched()).isFalse();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.CONNECTION_REFUSED);
    }

    @Test
    void shouldBeUnknownWhenResponseTimesOutAfterSending() {
        server.answer(exchange -> {
            Thread.sleep(3_000);
            LocalHttpServer.respond(exchange, 200, Map.of(), "{}");
        });

        DispatchResult result = dispatch(connector(Map.of("response-timeout-ms", "500")));

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.RESPONSE_TIMEOUT);
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void shouldBeUnknownWhenConnectionDropsAfterSending() {
        server.answer(exchange -> exchange.close());

        DispatchResult result = dispatch(connector());

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.CONNECTION_LOST);
    }

    @Test
    void shouldCarryTheCurrentTraceContextToTheProvider() {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        server.answer(200, Map.of(), "{\"id\":\"rcpt-9\"}");
        server.answer(200, Map.of(), "{\"id\":\"rcpt-10\"}");

        Tracing.Scope traced = Tracing.continueTrace(Map.of("traceparent", traceparent, "tracestate", "vendor=abc"),
                "test", SpanKind.CONSUMER);
        try (traced) {
            dispatch(connector());
        }
        dispatch(connector());

        assertThat(server.requests()).hasSize(2);
        assertThat(server.requests().get(0).header("traceparent")).isEqualTo(traceparent);
        assertThat(server.requests().get(0).header("tracestate")).isEqualTo("vendor=abc");
        // outside the scope: no trace, no header
        assertThat(server.requests().get(1).header("traceparent")).isNull();
    }

    @Test
    void shouldRefuseInvalidInputWithoutSending() {
        DispatchResult result = connector().dispatch(Requests.dispatch("webhook", "notify", "[1,2]"));

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.dispatched()).isFalse();
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void shouldClassifyByConfiguredLists() {
        WebhookConnector connector = connector();

        assertThat(connector.classifier().classify("status", INPUT).kind()).isEqualTo(Classification.Kind.READ);
        assertThat(connector.classifier().classify("notify", INPUT).kind()).isEqualTo(Classification.Kind.EFFECT);
        assertThat(connector.classifier().classify("delete_all", INPUT).kind()).isEqualTo(Classification.Kind.UNSUPPORTED);
        assertThat(connector.classifier().classify(null, INPUT).kind()).isEqualTo(Classification.Kind.UNSUPPORTED);
    }

    @Test
    void shouldValidateOperationShapeAndSize() {
        WebhookConnector connector = connector(Map.of("max-input-bytes", "50"));

        assertThat(connector.classifier().validate("notify", INPUT).valid()).isTrue();
        assertThat(connector.classifier().validate("other", INPUT).valid()).isFalse();
        assertThat(connector.classifier().validate("notify", "not json").valid()).isFalse();
        assertThat(connector.classifier().validate("notify", "\"text\"").valid()).isFalse();
        assertThat(connector.classifier().validate("notify", "{\"a\":1,\"a\":2}").valid()).isFalse();
        assertThat(connector.classifier().validate("notify", "{\"t\":\"" + "x".repeat(60) + "\"}").violation()).contains("50 bytes");
    }

    @Test
    void shouldRejectBadSettingsAtStart() {
        assertThatThrownBy(() -> WebhookSettings.from(TestContext.of(Map.of(), Map.of())))
                .hasMessageContaining("base-url");
        assertThatThrownBy(() -> WebhookSettings.from(TestContext.of(
                Map.of("base-url", "ftp://host/x"), Map.of()))).hasMessageContaining("base-url");
        assertThatThrownBy(() -> WebhookSettings.from(TestContext.of(
                Map.of("base-url", "http://h", "operations", "../admin"), Map.of()))).hasMessageContaining("operation");
        assertThatThrownBy(() -> WebhookSettings.from(TestContext.of(
                Map.of("base-url", "http://h", "operations", "a", "read-operations", "a"), Map.of())))
                .hasMessageContaining("both");
    }

    @Test
    void shouldConfirmEffectWhenLookupSaysApplied() {
        server.answer(200, Map.of(), "{\"status\":\"applied\",\"id\":\"rcpt-7\"}");

        var result = connector().lookup(Requests.lookup("webhook", "notify", "key 1/2", null));

        assertThat(result.verdict()).isEqualTo(Verdict.EFFECT_CONFIRMED);
        assertThat(result.providerReceiptId()).isEqualTo("rcpt-7");
        assertThat(server.requests()).singleElement().satisfies(r -> {
            assertThat(r.method()).isEqualTo("GET");
            assertThat(r.path()).isEqualTo("/hooks/idempotency/key%201%2F2");
            assertThat(r.header("Authorization")).isEqualTo("Bearer " + TOKEN);
        });
    }

    @Test
    void shouldReportNoEffectWhenLookupIs404() {
        server.answer(404, Map.of(), "");

        assertThat(connector().lookup(Requests.lookup("webhook", "notify", "k", null)).verdict())
                .isEqualTo(Verdict.NO_EFFECT);
    }

    @Test
    void shouldStayUnknownWhenLookupIs500() {
        server.answer(500, Map.of(), "");

        assertThat(connector().lookup(Requests.lookup("webhook", "notify", "k", null)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
    }

    @Test
    void shouldStayUnknownWhenLookupIs200WithoutApplied() {
        server.answer(200, Map.of(), "{\"status\":\"pending\"}");

        assertThat(connector().lookup(Requests.lookup("webhook", "notify", "k", null)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
    }

    @Test
    void shouldStayUnknownWhenLookupCannotConnect() {
        WebhookConnector connector = connector(Map.of("base-url", "http://127.0.0.1:" + LocalHttpServer.closedPort()));

        assertThat(connector.lookup(Requests.lookup("webhook", "notify", "k", null)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
    }

    @Test
    void shouldNeverPutCredentialInResultsOrLogs() {
        try (LogCapture logs = new LogCapture()) {
            WebhookConnector connector = connector();
            server.answer(400, Map.of(), "{\"error\":\"you sent " + TOKEN + "\"}");
            DispatchResult rejected = dispatch(connector);
            server.answer(500, Map.of(), "Authorization: Bearer " + TOKEN);
            DispatchResult unknown = dispatch(connector);
            server.answer(200, Map.of(), "{\"status\":\"applied\",\"id\":\"" + TOKEN + "\"}");
            var lookup = connector.lookup(Requests.lookup("webhook", "notify", "k", null));

            assertThat(String.valueOf(rejected) + unknown + lookup + connector).doesNotContain(TOKEN);
            assertThat(logs.lines()).isNotEmpty().noneMatch(line -> line.contains(TOKEN));
        }
    }

    @Test
    void shouldSendLoadedAttachmentsAsMultipartWithTheInputPartUnchanged() {
        server.answer(200, Map.of(), "{\"status\":\"applied\",\"id\":\"rcpt-a\"}");
        byte[] report = "quarterly numbers\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] notes = "--not-a-boundary--".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        io.actiongate.connector.spi.DispatchRequest request = new io.actiongate.connector.spi.DispatchRequest(
                "T-1", "C-1", 1, "key-att", "acme", "webhook", "notify", "notify", INPUT, java.util.List.of(
                        new io.actiongate.connector.spi.Attachment("attachments/T-1/C-1/a", "a".repeat(64),
                                report.length, "text/plain", report),
                        new io.actiongate.connector.spi.Attachment("attachments/T-1/C-1/b", "b".repeat(64),
                                notes.length, "text/csv", notes)), Instant.parse("2030-01-01T00:00:00Z"));

        assertThat(connector().dispatch(request).status()).isEqualTo(Status.SUCCEEDED);

        assertThat(server.requests()).singleElement().satisfies(r -> {
            String type = r.header("Content-Type");
            assertThat(type).startsWith("multipart/form-data; boundary=actiongate-");
            String boundary = type.substring(type.indexOf("boundary=") + 9);
            assertThat(r.body()).isEqualTo("--" + boundary + "\r\n"
                    + "Content-Disposition: form-data; name=\"input\"\r\nContent-Type: application/json\r\n\r\n"
                    + INPUT + "\r\n--" + boundary + "\r\n"
                    + "Content-Disposition: form-data; name=\"attachment\"; filename=\"attachment-1\"\r\n"
                    + "Content-Type: text/plain\r\n\r\nquarterly numbers\n\r\n--" + boundary + "\r\n"
                    + "Content-Disposition: form-data; name=\"attachment\"; filename=\"attachment-2\"\r\n"
                    + "Content-Type: text/csv\r\n\r\n--not-a-boundary--\r\n--" + boundary + "--\r\n");
            assertThat(r.body()).doesNotContain("attachments/T-1/C-1");
            assertThat(r.header("Idempotency-Key")).isEqualTo("key-att");
        });
    }

    @Test
    void shouldRefuseAttachmentsWhoseBytesWereNotLoadedWithoutSending() {
        io.actiongate.connector.spi.DispatchRequest request = new io.actiongate.connector.spi.DispatchRequest(
                "T-1", "C-1", 1, "key-ref", "acme", "webhook", "notify", "notify", INPUT, java.util.List.of(
                        new io.actiongate.connector.spi.Attachment("attachments/T-1/C-1/a", "a".repeat(64), 3,
                                "text/plain")), Instant.parse("2030-01-01T00:00:00Z"));

        DispatchResult result = connector().dispatch(request);

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.dispatched()).isFalse();
        assertThat(result.errorCode()).isEqualTo("ATTACHMENT_INVALID");
        assertThat(server.requests()).isEmpty();
    }
}
