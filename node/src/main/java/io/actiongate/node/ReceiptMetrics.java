package io.actiongate.node;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.gate.ReceiptObserver;
import io.actiongate.http.GateMetrics;
import io.actiongate.key.ActionKey;

/**
 * Turns the receipts one gate instance publishes into metrics: receipts by status and reason code, how long actions
 * waited for a human decision, and how many actions of this instance are UNKNOWN right now. Receipts are re-published
 * on redelivery, so the per-action figures track action keys, not receipts. The waiting and unknown keys are held in
 * memory: after a restart this instance counts only what it sees from then on, and the tracked waiting actions are
 * capped at {@link #MAX_TRACKED} (beyond it their wait is not measured).
 */
final class ReceiptMetrics implements ReceiptObserver {

    static final int MAX_TRACKED = 100_000;

    private final GateMetrics metrics;
    private final Map<String, Instant> waitingSince = new ConcurrentHashMap<>();
    private final Map<String, Boolean> unknown = new ConcurrentHashMap<>();

    ReceiptMetrics(GateMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void published(Receipt receipt) {
        metrics.receipt(receipt.getStatus().name(), receipt.getReasonCode());
        String key = ActionKey.format(receipt.getTaskId(), receipt.getToolCallId());
        ReceiptStatus status = receipt.getStatus();

        if (status == ReceiptStatus.WAITING_APPROVAL) {
            if (waitingSince.size() < MAX_TRACKED) {
                waitingSince.putIfAbsent(key, receipt.getUpdatedAt());
            }
        } else {
            Instant since = waitingSince.remove(key);
            // the first receipt carrying the decision: an approval answers with the state it left (DISPATCHING,
            // or a failed recheck's refusal), never with APPROVED on the way (one receipt per input record)
            if (since != null && receipt.getDecisionId() != null) {
                metrics.approvalWait(Duration.between(since, receipt.getUpdatedAt()));
            }
        }

        if (status == ReceiptStatus.UNKNOWN) {
            if (unknown.putIfAbsent(key, Boolean.TRUE) == null) {
                metrics.unknownOpened();
            }
        } else if (unknown.remove(key) != null) {
            metrics.unknownResolved();
        }
    }
}
