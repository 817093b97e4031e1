package io.actiongate.gate.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Attachment;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.UnknownOutcome;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.IdempotencyKeys;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.Rejection;
import io.actiongate.serde.WireEnums;

/**
 * Builds the contract records the gate writes from its internal state. Receipts and conflicts carry ids,
 * digests, statuses and redacted reasons only: never the input body, summary or attachment keys.
 */
public final class StateRecords {

    private StateRecords() {
    }

    /** The internal frozen action of a proposal; a missing idempotency key is derived from the action key. */
    public static ActionState.Action action(ActionProposal p) {
        ActionState.OriginRef origin = p.getOrigin() == null ? null : new ActionState.OriginRef(
                p.getOrigin().getConversationId(), p.getOrigin().getTurnId(),
                p.getOrigin().getAssistantMessageId(), p.getOrigin().getHumanMessageId());
        List<ActionState.AttachmentRef> attachments = new ArrayList<>(p.getAttachments().size());
        for (Attachment a : p.getAttachments()) {
            attachments.add(new ActionState.AttachmentRef(a.getObjectKey(), a.getSha256(), a.getSizeBytes(),
                    a.getContentType(), a.getOwnerInvocationId()));
        }
        String key = ActionKey.format(p.getTaskId(), p.getToolCallId());
        String idempotencyKey = p.getIdempotencyKey() != null ? p.getIdempotencyKey() : derivedIdempotencyKey(key);
        return new ActionState.Action(p.getTaskId(), p.getToolCallId(), p.getTaskVersion(), p.getOrgId(),
                p.getPrincipalId(), p.getProfileId(), p.getAuthorizationEpoch(), p.getProvider(), p.getOperation(),
                p.getToolName(), p.getToolSchemaHash(), p.getInputJson(), p.getInputDigest(), p.getSummary(),
                idempotencyKey, p.getBusinessOperationId(), origin, attachments);
    }

    /** Stable across attempts and restarts: a hash of the action key ({@link IdempotencyKeys#derived}). */
    public static String derivedIdempotencyKey(String actionKey) {
        return IdempotencyKeys.derived(actionKey);
    }

    private static final java.util.regex.Pattern DIGEST = java.util.regex.Pattern.compile("sha256:[0-9a-f]{64}");

    /** A proposer's claimed digest is echoed only when it has the digest's shape: it is free text otherwise. */
    public static String wellFormedDigest(String claimed) {
        return claimed != null && DIGEST.matcher(claimed).matches() ? claimed : "invalid";
    }

    public static Receipt receipt(ActionState s) {
        ActionState.Action a = s.action();
        List<AttemptSummary> attempts = new ArrayList<>(s.attempts().size());
        for (ActionState.AttemptRecord r : s.attempts()) {
            if (!r.settled()) {
                continue; // in flight: the receipt's status says DISPATCHING
            }
            attempts.add(AttemptSummary.newBuilder()
                    .setAttempt(r.attempt())
                    .setStatus(WireEnums.wire(r.status()))
                    .setDispatched(Boolean.TRUE.equals(r.dispatched()))
                    .setHttpStatus(r.httpStatus())
                    .setErrorCode(r.errorCode())
                    .setStartedAt(r.startedAt() == null ? null : Instant.ofEpochMilli(r.startedAt()))
                    .setFinishedAt(r.finishedAt() == null ? null : Instant.ofEpochMilli(r.finishedAt()))
                    .build());
        }
        return Receipt.newBuilder()
                .setTaskId(a.taskId())
                .setToolCallId(a.toolCallId())
                .setStatus(s.phase().receiptStatus())
                .setReasonCode(s.reasonCode() == null ? null : s.reasonCode().name())
                .setReason(s.reason())
                .setOrgId(a.orgId())
                .setToolName(a.toolName())
                .setProvider(a.provider())
                .setOperation(a.operation())
                .setInputDigest(wellFormedDigest(a.inputDigest()))
                .setActionDigest(s.actionDigest())
                .setDecisionId(s.decisionId())
                .setAttempts(attempts)
                .setProviderReceiptId(s.providerReceiptId())
                .setResolvedBy(s.resolvedBy() == null ? null : s.resolvedBy().wire())
                .setUpdatedAt(Instant.ofEpochMilli(s.updatedAt()))
                .build();
    }

    /** A REJECTED receipt for a proposal the gate does not hold (its key or ids are unusable). */
    public static Receipt rejectedWithoutState(String taskId, String toolCallId, ActionProposal p, Rejection r,
                                               long now) {
        return Receipt.newBuilder()
                .setTaskId(taskId)
                .setToolCallId(toolCallId)
                .setStatus(ReceiptStatus.REJECTED)
                .setReasonCode(r.code().name())
                .setReason(r.reason())
                .setOrgId(p.getOrgId())
                .setToolName(p.getToolName())
                .setProvider(p.getProvider())
                .setOperation(p.getOperation())
                .setUpdatedAt(Instant.ofEpochMilli(now))
                .build();
    }

    public static AttemptReservation reservation(ActionState s, ActionState.AttemptRecord attempt) {
        ActionState.Action a = s.action();
        List<Attachment> attachments = new ArrayList<>(a.attachments().size());
        for (ActionState.AttachmentRef r : a.attachments()) {
            attachments.add(Attachment.newBuilder().setObjectKey(r.objectKey()).setSha256(r.sha256())
                    .setSizeBytes(r.sizeBytes()).setContentType(r.contentType())
                    .setOwnerInvocationId(r.ownerInvocationId()).build());
        }
        return AttemptReservation.newBuilder()
                .setTaskId(a.taskId())
                .setToolCallId(a.toolCallId())
                .setAttempt(attempt.attempt())
                .setIdempotencyKey(a.idempotencyKey())
                .setOrgId(a.orgId())
                .setProvider(a.provider())
                .setOperation(a.operation())
                .setToolName(a.toolName())
                .setInputJson(a.inputJson())
                .setAttachments(attachments)
                .setActionDigest(s.actionDigest())
                .setToolSchemaHash(a.toolSchemaHash())
                .setReservedAt(Instant.ofEpochMilli(attempt.reservedAt()))
                .setLeaseExpiresAt(Instant.ofEpochMilli(attempt.leaseExpiresAt()))
                .setDecisionId(s.decisionId())
                .setApprovedBy(s.approvedBy())
                .setSummary(a.summary())
                .build();
    }

    public static UnknownOutcome unknownOutcome(ActionState s, ReasonCode code, String reason, long now) {
        ActionState.Action a = s.action();
        return UnknownOutcome.newBuilder()
                .setTaskId(a.taskId())
                .setToolCallId(a.toolCallId())
                .setAttempt(s.lastAttempt() == null ? 0 : s.lastAttempt().attempt())
                .setIdempotencyKey(a.idempotencyKey())
                .setOrgId(a.orgId())
                .setProvider(a.provider())
                .setOperation(a.operation())
                .setToolName(a.toolName())
                .setInputJson(a.inputJson())
                .setReason(code == null ? reason : code.name() + ": " + reason)
                .setSince(Instant.ofEpochMilli(now))
                .build();
    }

    /**
     * The conflict of {@code offered} (action digest {@code offeredDigest}, null when its input does not parse) with
     * the held action. Both digests are action digests (the frozen action, tenant included), so two offers that
     * differ only in org or principal show different digests; where one is unknown (an input that does not parse,
     * a held action refused before its input was verified) its input digest stands in.
     */
    public static IdentityConflict conflict(ActionState existing, ActionProposal offered, String offeredDigest,
                                            long now) {
        return IdentityConflict.newBuilder()
                .setTaskId(offered.getTaskId())
                .setToolCallId(offered.getToolCallId())
                .setExistingDigest(existing.actionDigest() != null ? existing.actionDigest()
                        : wellFormedDigest(existing.action().inputDigest()))
                .setOfferedDigest(offeredDigest != null ? offeredDigest : wellFormedDigest(offered.getInputDigest()))
                .setExistingTool(existing.action().provider() + ":" + existing.action().toolName() + ":"
                        + existing.action().operation())
                .setOfferedTool(offered.getProvider() + ":" + offered.getToolName() + ":" + offered.getOperation())
                .setDetectedAt(Instant.ofEpochMilli(now))
                .build();
    }
}
