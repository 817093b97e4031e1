package io.actiongate.client;

import java.util.EnumSet;
import java.util.Set;

/** A receipt's {@code status} (docs/contract.md section 4), as the client library exposes it. */
public enum ReceiptState {
    WAITING_APPROVAL, APPROVED, DISPATCHING, SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, UNKNOWN,
    NOT_APPLIED;

    private static final Set<ReceiptState> TERMINAL =
            EnumSet.of(SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, NOT_APPLIED);

    /**
     * Whether nothing further happens to the action on its own. {@code UNKNOWN} is not terminal: a reconciler or an
     * owner still settles it.
     */
    public boolean isTerminal() {
        return TERMINAL.contains(this);
    }
}
