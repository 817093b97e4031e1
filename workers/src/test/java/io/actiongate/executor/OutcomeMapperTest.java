package io.actiongate.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.secrets.Redaction;

class OutcomeMapperTest {

    private static final Instant STARTED = Instant.parse("2026-11-30T01:00:00Z");
    private static final Instant FINISHED = Instant.parse("2026-11-30T01:00:01Z");
    private final OutcomeMapper mapper = new OutcomeMapper("exec-1");
    private final AttemptReservation reservation = Reservations.live("c-1", "webhook");

    private AttemptOutcome map(DispatchResult result) {
        return mapper.fromResult(reservation, result, STARTED, FINISHED);
    }

    @Test
    void shouldMapSucceededWithReceiptAndTimes() {
        AttemptOutcome outcome = map(DispatchResult.succeeded(200, "sbx-1"));
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.SUCCEEDED);
        assertThat(outcome.getDispatched()).isTrue();
        assertThat(outcome.getHttpStatus()).isEqualTo(200);
        assertThat(outcome.getProviderReceiptId()).isEqualTo("sbx-1");
        assertThat(outcome.getErrorCode()).isNull();
        assertThat(outcome.getStartedAt()).isEqualTo(STARTED);
        assertThat(outcome.getFinishedAt()).isEqualTo(FINISHED);
        assertThat(outcome.getExecutorId()).isEqualTo("exec-1");
        assertThat(outcome.getTaskId()).isEqualTo("T-1");
        assertThat(outcome.getToolCallId()).isEqualTo("c-1");
        assertThat(outcome.getAttempt()).isEqualTo(1);
    }

    @Test
    void shouldMapFailedAsAProviderRefusal() {
        AttemptOutcome outcome = map(DispatchResult.failed(422, "PROVIDER_REJECTED", "unprocessable"));
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.FAILED);
        assertThat(outcome.getDispatched()).isTrue();
        assertThat(outcome.getHttpStatus()).isEqualTo(422);
        assertThat(outcome.getErrorCode()).isEqualTo("PROVIDER_REJECTED");
        assertThat(outcome.getRetryAt()).isNull();
    }

    @Test
    void shouldMapA429AsRetryableWithItsRetryAt() {
        Instant retryAt = FINISHED.plusSeconds(2);
        AttemptOutcome outcome = map(DispatchResult.rateLimited(429, retryAt, "slow down"));
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.RETRYABLE);
        assertThat(outcome.getDispatched()).isTrue();
        assertThat(outcome.getRetryAt()).isEqualTo(retryAt);
        assertThat(outcome.getErrorCode()).isEqualTo("RATE_LIMITED");
    }

    @Test
    void shouldMapNothingSentAsRetryableNotDispatched() {
        AttemptOutcome outcome = map(DispatchResult.notSent("CONNECTION_REFUSED", "refused"));
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.RETRYABLE);
        assertThat(outcome.getDispatched()).isFalse();
    }

    @Test
    void shouldMapUnknownAsDispatchedAndNeverRetryable() {
        AttemptOutcome outcome = map(DispatchResult.unknown(500, "PROVIDER_ERROR", "500 after sending"));
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.UNKNOWN);
        assertThat(outcome.getDispatched()).isTrue();
        assertThat(outcome.getRetryAt()).isNull();
    }

    @Test
    void shouldMapNotDispatched() {
        AttemptOutcome outcome = map(new DispatchResult(DispatchResult.Status.NOT_DISPATCHED, false, null, null,
                "LEASE_EXPIRED", "late", null));
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.NOT_DISPATCHED);
        assertThat(outcome.getDispatched()).isFalse();
        assertThat(outcome.getErrorCode()).isEqualTo("LEASE_EXPIRED");
    }

    @Test
    void shouldTurnNotDispatchedAfterSendingIntoUnknown() {
        AttemptOutcome outcome = map(new DispatchResult(DispatchResult.Status.NOT_DISPATCHED, true, null, null,
                "X", null, null));
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.UNKNOWN);
        assertThat(outcome.getErrorCode()).isEqualTo(OutcomeMapper.INCONSISTENT_RESULT);
    }

    @Test
    void shouldTurnRetryableAfterSendingWithoutA429IntoUnknown() {
        AttemptOutcome outcome = map(new DispatchResult(DispatchResult.Status.RETRYABLE, true, 503, null,
                "UNAVAILABLE", null, FINISHED.plusSeconds(5)));
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.UNKNOWN);
        assertThat(outcome.getRetryAt()).isNull();
    }

    @Test
    void shouldMarkSucceededAsDispatchedEvenWhenTheConnectorSaysOtherwise() {
        AttemptOutcome outcome = map(new DispatchResult(DispatchResult.Status.SUCCEEDED, false, 200, "r", null,
                null, null));
        assertThat(outcome.getDispatched()).isTrue();
    }

    @Test
    void shouldRedactAndBoundErrorDetail() {
        String detail = "Authorization: Bearer sk_live_abcdefghijklmnopqrstuvwxyz0123456789 at "
                + "https://hooks.example.com/x?sig=deadbeef " + "y".repeat(1000);
        AttemptOutcome outcome = map(DispatchResult.unknown(500, "PROVIDER_ERROR", detail));
        assertThat(outcome.getErrorDetail()).doesNotContain("sk_live").doesNotContain("sig=deadbeef")
                .hasSizeLessThanOrEqualTo(Redaction.DEFAULT_MAX_LENGTH);
    }

    @Test
    void shouldKeepAnOpaqueReceiptIdButNotAnythingThatLooksLikeACredential() {
        assertThat(map(DispatchResult.succeeded(200, "sbx-939f5811-27fa-4e15-bcdb-7f9275b4e065"))
                .getProviderReceiptId()).isEqualTo("sbx-939f5811-27fa-4e15-bcdb-7f9275b4e065");
        assertThat(map(DispatchResult.succeeded(200, "Bearer abcdefghijklmnopqrstuvwxyz0123456789ABCDEF"))
                .getProviderReceiptId()).doesNotContain("abcdefghijklmnopqrstuvwxyz");
    }

    @Test
    void shouldReportLeaseExpiryAsNotDispatched() {
        AttemptOutcome outcome = mapper.leaseExpired(reservation, STARTED);
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.NOT_DISPATCHED);
        assertThat(outcome.getDispatched()).isFalse();
        assertThat(outcome.getErrorCode()).isEqualTo("LEASE_EXPIRED");
    }
}
