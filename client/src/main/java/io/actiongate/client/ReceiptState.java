package io.actiongate.client;

import java.util.EnumSet;
import java.util.Set;

import io.actiongate.avro.ReceiptStatus;

/** A receipt's {@code status} (docs/contract.md section 4), as the client library exposes it. */
public enum ReceiptState {
    WAITING_APPROVAL, APPROVED, DISPATCHING, SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, UNKNOWN,
    NOT_APPLIED;

    private static final Set<ReceiptState> TERMINAL =
            EnumSet.of(SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, NOT_APPLIED);

    /**
     * The state a receipt's wire status stands for: the one table from the Avro enum to this type, total because a
     * switch expression over an enum must name every constant (a new wire status fails the build here).
     */
    public static ReceiptState of(ReceiptStatus wire) {
        return switch (wire) {
            case WAITING_APPROVAL -> WAITING_APPROVAL;
            case APPROVED -> APPROVED;
            case DISPATCHING -> DISPATCHING;
            case SUCCEEDED -> SUCCEEDED;
            case FAILED -> FAILED;
            case REJECTED -> REJECTED;
            case DENIED -> DENIED;
            case EXPIRED -> EXPIRED;
            case CANCELLED -> CANCELLED;
            case UNKNOWN -> UNKNOWN;
            case NOT_APPLIED -> NOT_APPLIED;
        };
    }

    /**
     * Whether nothing further happens to the action on its own. {@code UNKNOWN} is not terminal: a reconciler or an
     * owner still settles it.
     */
    public boolean isTerminal() {
        return TERMINAL.contains(this);
    }
}
