package io.actiongate.client;

import java.time.Instant;
import java.util.Optional;

import io.actiongate.key.ActionKey;

/**
 * The redacted state of one action as the gate published it on {@code receipts}. Never holds the input body.
 *
 * @param taskId            the action key's task id
 * @param toolCallId        the action key's tool call id
 * @param state             the receipt status
 * @param reasonCode        a reason code of docs/contract.md section 4 when the gate gave one, else null
 * @param inputDigest       the input digest the gate holds for the action, null on receipts that carry none
 * @param actionDigest      what an approver signs, null before admission
 * @param decisionId        the decision that approved or denied the action, else null
 * @param providerReceiptId the provider's id for the effect when it happened, else null
 * @param attempts          how many attempts were made
 * @param updatedAt         when the gate made this transition
 */
public record ActionReceipt(String taskId, String toolCallId, ReceiptState state, String reasonCode,
        String inputDigest, String actionDigest, String decisionId, String providerReceiptId, int attempts,
        Instant updatedAt) {

    public String actionKey() {
        return ActionKey.format(taskId, toolCallId);
    }

    public Optional<String> reason() {
        return Optional.ofNullable(reasonCode);
    }
}
