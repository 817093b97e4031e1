package io.actiongate.connector.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * What one dispatch observed. {@code dispatched} is true when any byte of the request may have reached
 * the provider; only a result with {@code dispatched == false} or an explicit 429 may be retried.
 */
public record DispatchResult(
        Status status,
        boolean dispatched,
        Integer httpStatus,
        String providerReceiptId,
        String errorCode,
        String errorDetail,
        Instant retryAt) {

    /** Mirrors the Avro {@code OutcomeStatus}. */
    public enum Status { SUCCEEDED, FAILED, RETRYABLE, UNKNOWN, NOT_DISPATCHED }

    public DispatchResult {
        Objects.requireNonNull(status, "status");
    }

    public static DispatchResult succeeded(Integer httpStatus, String providerReceiptId) {
        return new DispatchResult(Status.SUCCEEDED, true, httpStatus, providerReceiptId, null, null, null);
    }

    /** A definite refusal by the provider: it answered and did nothing. */
    public static DispatchResult failed(Integer httpStatus, String errorCode, String errorDetail) {
        return new DispatchResult(Status.FAILED, true, httpStatus, null, errorCode, errorDetail, null);
    }

    /** The provider asked us to come back later (429); it did nothing. */
    public static DispatchResult rateLimited(Integer httpStatus, Instant retryAt, String errorDetail) {
        return new DispatchResult(Status.RETRYABLE, true, httpStatus, null, "RATE_LIMITED", errorDetail, retryAt);
    }

    /** Nothing was sent (connection refused before any byte): provably no effect. */
    public static DispatchResult notSent(String errorCode, String errorDetail) {
        return new DispatchResult(Status.RETRYABLE, false, null, null, errorCode, errorDetail, null);
    }

    /**
     * A definite, final refusal before anything was sent: the input broke a bound at dispatch time, the
     * connector cannot run this operation, or the provider refused the envelope (SMTP 5xx before DATA).
     */
    public static DispatchResult refusedBeforeSending(String errorCode, String errorDetail) {
        return new DispatchResult(Status.FAILED, false, null, null, errorCode, errorDetail, null);
    }

    /**
     * Provably nothing happened and nothing was attempted at the provider (the binary to run is missing, say): the
     * gate may try again in a later attempt, bounded by three.
     */
    public static DispatchResult notDispatched(String errorCode, String errorDetail) {
        return new DispatchResult(Status.NOT_DISPATCHED, false, null, null, errorCode, errorDetail, null);
    }

    /** The request may have reached the provider and we cannot tell what happened. Never replayed. */
    public static DispatchResult unknown(Integer httpStatus, String errorCode, String errorDetail) {
        return new DispatchResult(Status.UNKNOWN, true, httpStatus, null, errorCode, errorDetail, null);
    }
}
