package io.actiongate.chaos.check;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import io.actiongate.avro.ReceiptStatus;

/**
 * The order of receipt statuses, taken from the lifecycle table of docs/contract.md section 4 (the checker's own
 * copy: it never asks the gate's {@code Phase}); {@code ReceiptOrderTest} keeps it equal to the table. A move from
 * one committed receipt to the next is <em>forward</em> when the table reaches the new status from the old one in
 * one or more steps (more than one, because compaction may drop the receipts in between); anything else, such as
 * {@code DISPATCHING} after {@code SUCCEEDED}, goes backwards.
 */
public final class ReceiptOrder {

    /** The table's rows: from a status (null: the proposal, before any receipt) to the statuses it may move to. */
    static final Map<ReceiptStatus, Set<ReceiptStatus>> EDGES;
    static final Set<ReceiptStatus> FROM_PROPOSAL = Collections.unmodifiableSet(EnumSet.of(ReceiptStatus.REJECTED,
            ReceiptStatus.APPROVED, ReceiptStatus.WAITING_APPROVAL));

    static {
        Map<ReceiptStatus, Set<ReceiptStatus>> e = new EnumMap<>(ReceiptStatus.class);
        for (ReceiptStatus s : ReceiptStatus.values()) {
            e.put(s, EnumSet.noneOf(ReceiptStatus.class));
        }
        e.get(ReceiptStatus.WAITING_APPROVAL).addAll(EnumSet.of(ReceiptStatus.APPROVED, ReceiptStatus.DENIED,
                ReceiptStatus.EXPIRED, ReceiptStatus.CANCELLED));
        e.get(ReceiptStatus.APPROVED).addAll(EnumSet.of(ReceiptStatus.DISPATCHING, ReceiptStatus.CANCELLED,
                ReceiptStatus.EXPIRED, ReceiptStatus.REJECTED));
        e.get(ReceiptStatus.DISPATCHING).addAll(EnumSet.of(ReceiptStatus.SUCCEEDED, ReceiptStatus.FAILED,
                ReceiptStatus.APPROVED, ReceiptStatus.UNKNOWN));
        e.get(ReceiptStatus.UNKNOWN).addAll(EnumSet.of(ReceiptStatus.SUCCEEDED, ReceiptStatus.NOT_APPLIED,
                ReceiptStatus.APPROVED));
        e.replaceAll((k, v) -> Collections.unmodifiableSet(v));
        EDGES = Collections.unmodifiableMap(e);
    }

    private ReceiptOrder() {
    }

    /** True when the table reaches {@code to} from {@code from} (null: the proposal) in one or more steps. */
    public static boolean forward(ReceiptStatus from, ReceiptStatus to) {
        Set<ReceiptStatus> seen = EnumSet.noneOf(ReceiptStatus.class);
        Deque<ReceiptStatus> todo = new ArrayDeque<>(from == null ? FROM_PROPOSAL : EDGES.get(from));
        while (!todo.isEmpty()) {
            ReceiptStatus s = todo.pop();
            if (s == to) {
                return true;
            }
            if (seen.add(s)) {
                todo.addAll(EDGES.get(s));
            }
        }
        return false;
    }
}
