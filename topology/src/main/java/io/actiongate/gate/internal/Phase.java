package io.actiongate.gate.internal;

import io.actiongate.avro.ReceiptStatus;

/**
 * Where an action is in the lifecycle of ARCHITECTURE.md section 4. Mirrors the receipt status, plus
 * {@link #RETRY_WAIT} (approved, waiting for the next attempt's retry_at; its receipt says APPROVED).
 */
public enum Phase {
    WAITING_APPROVAL(ReceiptStatus.WAITING_APPROVAL),
    APPROVED(ReceiptStatus.APPROVED),
    RETRY_WAIT(ReceiptStatus.APPROVED),
    DISPATCHING(ReceiptStatus.DISPATCHING),
    UNKNOWN(ReceiptStatus.UNKNOWN),
    SUCCEEDED(ReceiptStatus.SUCCEEDED),
    FAILED(ReceiptStatus.FAILED),
    REJECTED(ReceiptStatus.REJECTED),
    DENIED(ReceiptStatus.DENIED),
    EXPIRED(ReceiptStatus.EXPIRED),
    CANCELLED(ReceiptStatus.CANCELLED),
    NOT_APPLIED(ReceiptStatus.NOT_APPLIED);

    private final ReceiptStatus receiptStatus;

    Phase(ReceiptStatus receiptStatus) {
        this.receiptStatus = receiptStatus;
    }

    public ReceiptStatus receiptStatus() {
        return receiptStatus;
    }

    /** Nothing more happens to a terminal action; it is kept for the dedupe window, then purged. */
    public boolean terminal() {
        return switch (this) {
            case SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, NOT_APPLIED -> true;
            default -> false;
        };
    }

    /** Accepted but not dispatched (no live reservation): cancellation of the task or origin stops it. */
    public boolean undispatched() {
        return this == WAITING_APPROVAL || this == APPROVED || this == RETRY_WAIT;
    }
}
