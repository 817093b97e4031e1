package io.actiongate.connector.x;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.DispatchResult.Status;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.LookupResult.Verdict;
import io.actiongate.connector.testing.LocalHttpServer;
import io.actiongate.connector.testing.LogCapture;
import io.actiongate.connector.testing.Requests;
import io.actiongate.connector.testing.TestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class XConnectorTest {

    static final String TOKEN = "AAAAxBearerTokenForTests0000";
    static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");
    static final String INPUT = "{\"text\":\"Release 1.2 is out & stable\"}";

    private final LocalHttpServer server = new LocalHttpServer();

    @AfterEach
    void stop() {
        server.close();
    }

    private XConnector connector(Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(Map.of(
                "base-url", server.baseUrl(),
                "credential", "file:/run/secrets/x",
                "user-id", "2244994945",
                "lookup-max-results", "50",
                "response-timeout-ms", "5000"));
        settings.putAll(extra);
        return new XConnector(XSettings.from(TestContext.of(settings, Map.of("file:/run/secrets/x", TOKEN))),
                Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private XConnector connector() {
        return connector(Map.of());
    }

    private static Map<String, String> rateHeaders(long reset) {
        return Map.of("x-rate-limit-limit", "200", "x-rate-limit-remaining", "0",
                "x-rate-limit-reset", String.valueOf(reset));
    }

    private DispatchResult post(XConnector connector) {
        return connector.dispatch(Requests.dispatch("x", "post", INPUT));
    }

    @Test
    void shouldPostTextWithBearerTokenAndReturnPostId() {
        server.answer(201, rateHeaders(NOW.getEpochSecond() + 900),
                "{\"data\":{\"id\":\"1445880548472328192\",\"text\":\"Release 1.2 is out &amp; stable\"}}");

        DispatchResult result = post(connector());

        assertThat(result.status()).isEqualTo(Status.SUCCEEDED);
        assertThat(result.providerReceiptId()).isEqualTo("1445880548472328192");
        assertThat(server.requests()).singleElement().satisfies(r -> {
            assertThat(r.method()).isEqualTo("POST");
            assertThat(r.path()).isEqualTo("/2/tweets");
            assertThat(r.body()).isEqualTo("{\"text\":\"Release 1.2 is out & stable\"}");
            assertThat(r.header("Authorization")).isEqualTo("Bearer " + TOKEN);
            assertThat(r.header("Content-Type")).isEqualTo("application/json");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "",
            "{}",
            "{\"errors\":[{\"message\":\"something\"}]}",
            "{\"data\":[]}",
            "{\"data\":{\"text\":\"no id\"}}",
            "{\"data\":{\"id\":1445880548472328192}}",
            "not json"})
    void shouldCallA2xxWithoutTheDocumentedPostBodyUnknown(String body) {
        server.answer(201, Map.of(), body);

        DispatchResult result = post(connector());

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.UNEXPECTED_RESPONSE);
        assertThat(result.providerReceiptId()).isNull();
    }

    @Test
    void shouldNotCopyAPostIdThatIsNotDecimal() {
        server.answer(201, Map.of(), "{\"data\":{\"id\":\"abc-123\",\"text\":\"x\"}}");

        DispatchResult result = post(connector());

        assertThat(result.status()).isEqualTo(Status.SUCCEEDED);
        assertThat(result.providerReceiptId()).isNull();
    }

    @Test
    void shouldRetryAtRateLimitResetWhenRetryAfterIsAbsent() {
        server.answer(429, rateHeaders(NOW.getEpochSecond() + 120), "{\"title\":\"Too Many Requests\"}");

        DispatchResult result = post(connector());

        assertThat(result.status()).isEqualTo(Status.RETRYABLE);
        assertThat(result.retryAt()).isEqualTo(NOW.plusSeconds(120));
    }

    @Test
    void shouldPreferRetryAfterOverRateLimitReset() {
        Map<String, String> headers = new HashMap<>(rateHeaders(NOW.getEpochSecond() + 300));
        headers.put("Retry-After", "7");
        server.answer(429, headers, "");

        assertThat(post(connector()).retryAt()).isEqualTo(NOW.plusSeconds(7));
    }

    @Test
    void shouldFailRateLimitedWhenResetIsBeyondCap() {
        server.answer(429, rateHeaders(NOW.getEpochSecond() + 15 * 60), "");

        DispatchResult result = post(connector());

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.RATE_LIMITED);
    }

    @Test
    void shouldFailRejectedOnDuplicateContent403() {
        server.answer(403, Map.of(), "{\"detail\":\"You are not allowed to create a Tweet with duplicate content.\"}");

        DispatchResult result = post(connector());

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.PROVIDER_REJECTED);
        assertThat(result.errorDetail()).contains("duplicate content");
    }

    @Test
    void shouldBeUnknownOn5xxAndTimeout() {
        server.answer(503, Map.of(), "");
        assertThat(post(connector()).status()).isEqualTo(Status.UNKNOWN);

        server.answer(exchange -> {
            Thread.sleep(3_000);
            LocalHttpServer.respond(exchange, 201, Map.of(), "{}");
        });
        DispatchResult timedOut = post(connector(Map.of("response-timeout-ms", "500")));
        assertThat(timedOut.status()).isEqualTo(Status.UNKNOWN);
        assertThat(timedOut.errorCode()).isEqualTo(ErrorCodes.RESPONSE_TIMEOUT);
    }

    @Test
    void shouldBeRetryableNotDispatchedWhenRefused() {
        DispatchResult result = post(connector(Map.of("base-url", "http://127.0.0.1:" + LocalHttpServer.closedPort())));

        assertThat(result.status()).isEqualTo(Status.RETRYABLE);
        assertThat(result.dispatched()).isFalse();
    }

    @Test
    void shouldClassifyOnlyPostAsEffect() {
        assertThat(connector().classifier().classify("post", INPUT).kind()).isEqualTo(Classification.Kind.EFFECT);
        assertThat(connector().classifier().classify("delete", INPUT).kind()).isEqualTo(Classification.Kind.UNSUPPORTED);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{}",
            "{\"text\":\"\"}",
            "{\"text\":42}",
            "{\"text\":\"hi\",\"reply\":{\"in_reply_to_tweet_id\":\"1\"}}",
            "{\"text\":\"hi\",\"media\":{}}",
            "[\"hi\"]",
            "not json"})
    void shouldRejectInputOtherThanOneTextField(String input) {
        assertThat(connector().classifier().validate("post", input).valid()).isFalse();
    }

    @Test
    void shouldBoundTextAt280Characters() {
        String emoji = "\uD83D\uDE80";
        assertThat(connector().classifier().validate("post", "{\"text\":\"" + emoji.repeat(280) + "\"}").valid()).isTrue();
        assertThat(connector().classifier().validate("post", "{\"text\":\"" + "a".repeat(281) + "\"}").valid()).isFalse();
    }

    @Test
    void shouldConfirmWhenExactTextIsAmongRecentPosts() {
        server.answer(200, rateHeaders(NOW.getEpochSecond() + 900), "{\"data\":["
                + "{\"id\":\"111\",\"text\":\"Release 1.2 is out\"},"
                + "{\"id\":\"222\",\"text\":\"Release 1.2 is out &amp; stable\"}],"
                + "\"meta\":{\"result_count\":2}}");

        LookupResult result = connector().lookup(Requests.lookup("x", "post", "k", INPUT));

        assertThat(result.verdict()).isEqualTo(Verdict.EFFECT_CONFIRMED);
        assertThat(result.providerReceiptId()).isEqualTo("222");
        assertThat(server.requests()).singleElement().satisfies(r -> {
            assertThat(r.path()).isEqualTo("/2/users/2244994945/tweets");
            assertThat(r.query()).isEqualTo("max_results=50");
            assertThat(r.header("Authorization")).isEqualTo("Bearer " + TOKEN);
        });
    }

    @Test
    void shouldStayUnknownWhenTextIsNotAmongRecentPosts() {
        server.answer(200, Map.of(), "{\"data\":[{\"id\":\"111\",\"text\":\"something else\"}]}");

        LookupResult result = connector().lookup(Requests.lookup("x", "post", "k", INPUT));

        assertThat(result.verdict()).isEqualTo(Verdict.STILL_UNKNOWN);
        assertThat(result.evidence()).contains("cannot prove");
    }

    @Test
    void shouldStayUnknownOnLookupErrors() {
        server.answer(429, rateHeaders(NOW.getEpochSecond() + 60), "");
        assertThat(connector().lookup(Requests.lookup("x", "post", "k", INPUT)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
        server.answer(200, Map.of(), "{\"meta\":{\"result_count\":0}}");
        assertThat(connector().lookup(Requests.lookup("x", "post", "k", INPUT)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
        assertThat(connector(Map.of("base-url", "http://127.0.0.1:" + LocalHttpServer.closedPort()))
                .lookup(Requests.lookup("x", "post", "k", INPUT)).verdict()).isEqualTo(Verdict.STILL_UNKNOWN);
        assertThat(connector().lookup(Requests.lookup("x", "post", "k", null)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
    }

    @Test
    void shouldRequireBearerTokenAndNumericUserId() {
        assertThatThrownBy(() -> XSettings.from(TestContext.of(Map.of("base-url", server.baseUrl()), Map.of())))
                .hasMessageContaining("credential");
        assertThatThrownBy(() -> XSettings.from(TestContext.of(
                Map.of("credential", "env:X", "user-id", "../admin"), Map.of("env:X", TOKEN))))
                .hasMessageContaining("user-id");
    }

    @Test
    void shouldNeverPutTokenInResultsOrLogs() {
        try (LogCapture logs = new LogCapture()) {
            server.answer(401, Map.of(), "{\"detail\":\"bad token " + TOKEN + "\"}");
            DispatchResult result = post(connector());

            assertThat(result.toString()).doesNotContain(TOKEN);
            assertThat(logs.lines()).isNotEmpty().noneMatch(l -> l.contains(TOKEN));
        }
    }
}
