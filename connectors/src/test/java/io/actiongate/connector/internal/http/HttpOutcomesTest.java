package io.actiongate.connector.internal.http;

import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.DispatchResult.Status;
import io.actiongate.connector.spi.ErrorCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class HttpOutcomesTest {

    static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");
    final HttpOutcomes outcomes = new HttpOutcomes(Duration.ofMinutes(10), Clock.fixed(NOW, ZoneOffset.UTC),
            List.of("topsecret"));

    private static final HttpOutcomes.SuccessBody DOCUMENTED = HttpOutcomes.SuccessBody.documented("id-1");

    @ParameterizedTest(name = "{0} -> {1}/{2}")
    @CsvSource({
            "200, SUCCEEDED, ",
            "201, SUCCEEDED, ",
            "299, SUCCEEDED, ",
            "400, FAILED, PROVIDER_REJECTED",
            "401, FAILED, PROVIDER_REJECTED",
            "409, FAILED, PROVIDER_REJECTED",
            "500, UNKNOWN, PROVIDER_ERROR",
            "502, UNKNOWN, PROVIDER_ERROR",
            "504, UNKNOWN, PROVIDER_ERROR",
            "301, UNKNOWN, UNEXPECTED_RESPONSE",
            "101, UNKNOWN, UNEXPECTED_RESPONSE"})
    void shouldMapStatusCodesAsSection5(int status, Status expected, String errorCode) {
        DispatchResult result = outcomes.forResponse(status, Optional.empty(), DOCUMENTED, new byte[0]);

        assertThat(result.status()).isEqualTo(expected);
        assertThat(result.errorCode()).isEqualTo(errorCode);
        assertThat(result.dispatched()).isTrue();
    }

    @Test
    void shouldNeverCallAnUndocumentedSuccessBodySucceeded() {
        DispatchResult result = outcomes.forResponse(200, Optional.empty(),
                HttpOutcomes.SuccessBody.undocumented("the body is not a JSON object"), "<html>".getBytes(
                        StandardCharsets.UTF_8));

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.UNEXPECTED_RESPONSE);
        assertThat(result.providerReceiptId()).isNull();
        assertThat(result.errorDetail()).contains("200").contains("not a JSON object");
    }

    @Test
    void shouldCopyOnlyTheCheckedReceiptIdOfADocumentedBody() {
        assertThat(outcomes.forResponse(201, Optional.empty(), HttpOutcomes.SuccessBody.documented("r-1"), null))
                .extracting(DispatchResult::status, DispatchResult::providerReceiptId)
                .containsExactly(Status.SUCCEEDED, "r-1");
        assertThat(outcomes.forResponse(200, Optional.empty(), HttpOutcomes.SuccessBody.documented(null), null))
                .extracting(DispatchResult::status, DispatchResult::providerReceiptId)
                .containsExactly(Status.SUCCEEDED, null);
        assertThat(outcomes.forResponse(200, Optional.empty(),
                HttpOutcomes.SuccessBody.documented("x-topsecret-y"), null).providerReceiptId()).isNull();
    }

    @Test
    void shouldApplyCapToRetryAt() {
        assertThat(outcomes.forResponse(429, Optional.of(NOW.plusSeconds(600)), DOCUMENTED, null).status())
                .isEqualTo(Status.RETRYABLE);
        assertThat(outcomes.forResponse(429, Optional.of(NOW.plusSeconds(601)), DOCUMENTED, null).status())
                .isEqualTo(Status.FAILED);
    }

    @Test
    void shouldRedactConfiguredSecretFromDetail() {
        byte[] body = "token topsecret was wrong".getBytes(StandardCharsets.UTF_8);

        assertThat(outcomes.forResponse(403, Optional.empty(), DOCUMENTED, body).errorDetail())
                .doesNotContain("topsecret").contains("[redacted]");
    }

    @Test
    void shouldTellNotSentFromMaybeSent() {
        assertThat(outcomes.forFailure(new ConnectException("refused")))
                .extracting(DispatchResult::status, DispatchResult::dispatched, DispatchResult::errorCode)
                .containsExactly(Status.RETRYABLE, false, ErrorCodes.CONNECTION_REFUSED);
        assertThat(outcomes.forFailure(new IOException("wrapped", new ConnectException("refused"))).dispatched())
                .isFalse();
        assertThat(outcomes.forFailure(new HttpConnectTimeoutException("connect")))
                .extracting(DispatchResult::status, DispatchResult::dispatched, DispatchResult::errorCode)
                .containsExactly(Status.RETRYABLE, false, ErrorCodes.CONNECT_TIMEOUT);
        assertThat(outcomes.forFailure(new HttpTimeoutException("response")))
                .extracting(DispatchResult::status, DispatchResult::dispatched, DispatchResult::errorCode)
                .containsExactly(Status.UNKNOWN, true, ErrorCodes.RESPONSE_TIMEOUT);
        assertThat(outcomes.forFailure(new SocketException("Connection reset")))
                .extracting(DispatchResult::status, DispatchResult::dispatched)
                .containsExactly(Status.UNKNOWN, true);
        assertThat(outcomes.forFailure(new InterruptedException()).status()).isEqualTo(Status.UNKNOWN);
    }
}
