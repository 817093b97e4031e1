package io.actiongate.executor;

import java.time.Instant;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.contract.ReasonCode;
import io.actiongate.secrets.Redaction;
import io.actiongate.serde.WireEnums;

/**
 * Turns what a connector observed into the {@link AttemptOutcome} the gate reads (docs/contract.md section 5).
 * The connector's word is kept except where it contradicts the fence, and then the mapping errs towards
 * "it may have happened":
 * <ul>
 *   <li>{@code NOT_DISPATCHED} claimed together with {@code dispatched=true} becomes {@code UNKNOWN};</li>
 *   <li>{@code RETRYABLE} after bytes were sent is only believed for an explicit 429; otherwise {@code UNKNOWN},
 *       because a retry could apply the effect twice;</li>
 *   <li>{@code SUCCEEDED} always carries {@code dispatched=true}.</li>
 * </ul>
 */
public final class OutcomeMapper {

    /** Error code when the connector threw instead of returning a result: we cannot know what was sent. */
    public static final String CONNECTOR_ERROR = "CONNECTOR_ERROR";
    /** Error code when a connector reported a combination the fence does not accept. */
    public static final String INCONSISTENT_RESULT = "INCONSISTENT_RESULT";

    private static final int HTTP_TOO_MANY_REQUESTS = 429;

    private final String executorId;

    public OutcomeMapper(String executorId) {
        this.executorId = executorId;
    }

    public AttemptOutcome fromResult(AttemptReservation reservation, DispatchResult result, Instant startedAt,
                                     Instant finishedAt) {
        OutcomeStatus status = WireEnums.wire(result.status());
        boolean dispatched = result.dispatched();
        String errorCode = result.errorCode();
        String errorDetail = result.errorDetail();
        Instant retryAt = result.retryAt();
        switch (result.status()) {
            case SUCCEEDED -> {
                dispatched = true;
                errorCode = null;
                retryAt = null;
            }
            case NOT_DISPATCHED -> {
                if (dispatched) {
                    status = OutcomeStatus.UNKNOWN;
                    errorDetail = "connector reported NOT_DISPATCHED after sending: " + errorCode;
                    errorCode = INCONSISTENT_RESULT;
                    retryAt = null;
                }
            }
            case RETRYABLE -> {
                Integer http = result.httpStatus();
                if (dispatched && (http == null || http != HTTP_TOO_MANY_REQUESTS)) {
                    status = OutcomeStatus.UNKNOWN;
                    errorDetail = "connector reported RETRYABLE after sending without a 429: " + errorCode;
                    errorCode = INCONSISTENT_RESULT;
                    retryAt = null;
                }
            }
            case UNKNOWN -> {
                dispatched = true;
                retryAt = null;
            }
            case FAILED -> retryAt = null;
            default -> throw new IllegalStateException("unhandled status " + result.status());
        }
        return base(reservation, status, dispatched, startedAt, finishedAt)
                .setHttpStatus(result.httpStatus())
                .setProviderReceiptId(Redaction.receiptId(result.providerReceiptId()))
                .setErrorCode(errorCode)
                .setErrorDetail(Redaction.redact(errorDetail))
                .setRetryAt(retryAt)
                .build();
    }

    /** The connector threw: it may have sent the request, so the outcome is UNKNOWN and is never retried. */
    public AttemptOutcome fromException(AttemptReservation reservation, RuntimeException error, Instant startedAt,
                                        Instant finishedAt) {
        return base(reservation, OutcomeStatus.UNKNOWN, true, startedAt, finishedAt)
                .setErrorCode(CONNECTOR_ERROR)
                .setErrorDetail("connector threw " + error.getClass().getSimpleName())
                .build();
    }

    /** The lease passed before dispatch: nothing was sent. */
    public AttemptOutcome leaseExpired(AttemptReservation reservation, Instant now) {
        return base(reservation, OutcomeStatus.NOT_DISPATCHED, false, now, now)
                .setErrorCode(ReasonCode.LEASE_EXPIRED.name())
                .setErrorDetail("lease expired at " + reservation.getLeaseExpiresAt() + " before dispatch")
                .build();
    }

    /**
     * No connector serves the reservation's provider in this executor. Nothing was sent, so the honest outcome is
     * NOT_DISPATCHED: FAILED/PROVIDER_REJECTED would claim a provider answer that never happened. The gate may
     * then reserve a further attempt (bounded by three), which succeeds once an executor with that connector runs.
     */
    public AttemptOutcome unknownProvider(AttemptReservation reservation, Instant now) {
        return base(reservation, OutcomeStatus.NOT_DISPATCHED, false, now, now)
                .setErrorCode(ReasonCode.UNKNOWN_PROVIDER_METHOD.name())
                .setErrorDetail(Redaction.redact("no connector for provider " + reservation.getProvider()))
                .build();
    }

    /**
     * The pre-dispatch check refused: an attachment did not verify, the tool schema changed, or the store or the
     * policy view could not be read. Nothing was sent.
     */
    public AttemptOutcome refusedBeforeDispatch(AttemptReservation reservation, String errorCode, String detail,
                                                Instant now) {
        return base(reservation, OutcomeStatus.NOT_DISPATCHED, false, now, now)
                .setErrorCode(errorCode)
                .setErrorDetail(Redaction.redact(detail))
                .build();
    }

    private AttemptOutcome.Builder base(AttemptReservation reservation, OutcomeStatus status, boolean dispatched,
                                        Instant startedAt, Instant finishedAt) {
        return AttemptOutcome.newBuilder()
                .setTaskId(reservation.getTaskId())
                .setToolCallId(reservation.getToolCallId())
                .setAttempt(reservation.getAttempt())
                .setStatus(status)
                .setDispatched(dispatched)
                .setHttpStatus(null)
                .setProviderReceiptId(null)
                .setErrorCode(null)
                .setErrorDetail(null)
                .setRetryAt(null)
                .setStartedAt(startedAt)
                .setFinishedAt(finishedAt)
                .setExecutorId(executorId);
    }
}
