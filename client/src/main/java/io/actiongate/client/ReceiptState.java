package io.actiongate.client;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import io.actiongate.avro.ReceiptStatus;

/** A receipt's {@code status} (docs/contract.md section 4), as the client library exposes it. */
public enum ReceiptState {
    WAITING_APPROVAL(ReceiptStatus.WAITING_APPROVAL),
    APPROVED(ReceiptStatus.APPROVED),
    DISPATCHING(ReceiptStatus.DISPATCHING),
    SUCCEEDED(ReceiptStatus.SUCCEEDED),
    FAILED(ReceiptStatus.FAILED),
    REJECTED(ReceiptStatus.REJECTED),
    DENIED(ReceiptStatus.DENIED),
    EXPIRED(ReceiptStatus.EXPIRED),
    CANCELLED(ReceiptStatus.CANCELLED),
    UNKNOWN(ReceiptStatus.UNKNOWN),
    NOT_APPLIED(ReceiptStatus.NOT_APPLIED);

    private static final Set<ReceiptState> TERMINAL =
            EnumSet.of(SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, NOT_APPLIED);

    /** The one table from the wire's status to this type: each constant above names its wire form. */
    private static final Map<ReceiptStatus, ReceiptState> BY_WIRE = new EnumMap<>(ReceiptStatus.class);

    static {
        for (ReceiptState state : values()) {
            if (BY_WIRE.put(state.wire, state) != null) {
                throw new IllegalStateException("two receipt states for " + state.wire);
            }
        }
    }

    private final ReceiptStatus wire;

    ReceiptState(ReceiptStatus wire) {
        this.wire = wire;
    }

    /**
     * The state a receipt's wire status stands for.
     *
     * @throws IllegalArgumentException if this client has no state for it (a newer gate's status)
     */
    public static ReceiptState of(ReceiptStatus wire) {
        ReceiptState state = BY_WIRE.get(wire);
        if (state == null) {
            throw new IllegalArgumentException("no receipt state for the wire status " + wire);
        }
        return state;
    }

    /**
     * Whether nothing further happens to the action on its own. {@code UNKNOWN} is not terminal: a reconciler or an
     * owner still settles it.
     */
    public boolean isTerminal() {
        return TERMINAL.contains(this);
    }
}
