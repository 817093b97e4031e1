package io.actiongate.gate.internal;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import io.actiongate.avro.ReceiptStatus;

/**
 * Where an action is in the lifecycle (docs/contract.md, "Lifecycle"; the diagram in the gate's DESIGN.md).
 * Mirrors the receipt status, plus {@link #RETRY_WAIT} (approved, waiting for the next attempt's retry_at; its
 * receipt says APPROVED) and {@link #NEW} (a proposal being admitted: never stored, never published).
 *
 * <p>Like Kafka's {@code Task.State}, each phase knows the phases it may move to ({@link #next()}), and
 * {@link ActionState#to} is the one transition method: it refuses any other move with an
 * {@link IllegalTransitionException}, which {@link Lifecycle#atomically} turns into an undone record, a dead letter
 * and a count in the {@code illegal-transitions-total} metric. The table is checked against the DESIGN.md diagram
 * by {@code LifecycleTableTest}.
 */
public enum Phase {
    NEW(null),
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

    private static final Map<Phase, Set<Phase>> NEXT = new EnumMap<>(Phase.class);

    static {
        allow(NEW, WAITING_APPROVAL, APPROVED, REJECTED);
        allow(WAITING_APPROVAL, APPROVED, DENIED, EXPIRED, CANCELLED);
        allow(APPROVED, DISPATCHING, CANCELLED, EXPIRED, REJECTED);
        allow(RETRY_WAIT, DISPATCHING, CANCELLED, EXPIRED, REJECTED);
        allow(DISPATCHING, SUCCEEDED, FAILED, RETRY_WAIT, UNKNOWN);
        allow(UNKNOWN, SUCCEEDED, NOT_APPLIED, RETRY_WAIT);
        for (Phase p : values()) {
            NEXT.putIfAbsent(p, Collections.unmodifiableSet(EnumSet.noneOf(Phase.class)));
        }
    }

    private static void allow(Phase from, Phase first, Phase... rest) {
        NEXT.put(from, Collections.unmodifiableSet(EnumSet.of(first, rest)));
    }

    private final ReceiptStatus receiptStatus;

    Phase(ReceiptStatus receiptStatus) {
        this.receiptStatus = receiptStatus;
    }

    /** The receipt status of this phase; {@link #NEW} has none (it is never published). */
    public ReceiptStatus receiptStatus() {
        if (receiptStatus == null) {
            throw new IllegalTransitionException(this, this, "a NEW action has no receipt");
        }
        return receiptStatus;
    }

    /** The phases this one may move to; empty for a terminal phase. */
    public Set<Phase> next() {
        return NEXT.get(this);
    }

    public boolean canMoveTo(Phase target) {
        return next().contains(target);
    }

    /** Nothing more happens to a terminal action; it is kept for the dedupe window, then purged. */
    public boolean terminal() {
        return this != NEW && next().isEmpty();
    }

    /** Accepted but not dispatched (no live reservation): cancellation of the task or origin stops it. */
    public boolean undispatched() {
        return this == WAITING_APPROVAL || this == APPROVED || this == RETRY_WAIT;
    }
}
