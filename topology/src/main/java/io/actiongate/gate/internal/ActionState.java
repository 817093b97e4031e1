package io.actiongate.gate.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.actiongate.avro.ResolvedBy;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.Tracing;
import io.actiongate.contract.ReasonCode;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.CheckedAction;

/**
 * The gate's state of one action, stored in {@code gate-actions} under its action key (layout 2, Avro binary, see
 * {@link ActionStateSerde}; layout 1, JSON, is still read). Immutable: every transition builds a new value, and
 * every change of phase goes through {@link #to}, which refuses a move the lifecycle does not allow
 * ({@link Phase#next()}). A move to a terminal phase drops the input ({@link Action#settled()}): a settled action
 * keeps what its receipt, the identity check of a redelivery (by action digest) and the read model need.
 *
 * <p>Layout 1 stores {@code reasonCode}, {@code resolvedBy} and each attempt's {@code status} as the enum constant's
 * name, so states written when these were strings read back unchanged.
 *
 * @param v                 the layout the state was read from, {@link #VERSION} for one built since (the serde
 *                          writes {@link ActionStateSerde#LAYOUT} whatever it holds)
 * @param action            the frozen action as proposed; a rejected proposal keeps only {@link Action#withoutInput()}
 * @param phase             lifecycle phase
 * @param reasonCode        reason code of the last refusal or failure, null otherwise
 * @param reason            redacted detail for the receipt, never input text
 * @param actionDigest      digest of the frozen action (what a human approves); null when rejected early
 * @param decisionId        the approval's decision id (null for auto-approved actions)
 * @param approvalExpiresAt when the approval stops being valid for a new reservation (millis), or null
 * @param approvedBy        the approving decision's {@code approver_subject} (null for auto-approved actions, a
 *                          rejection and states written before it was kept); every reservation carries it
 * @param attempts          every reserved attempt, in order, with what was observed
 * @param providerReceiptId the provider's id of the effect, once known
 * @param resolvedBy        who settled it, once settled
 * @param resolutionId      the owner decision that settled an UNKNOWN action, if any
 * @param timerKey          the one live timer of this action in {@code gate-timer-index} (rebuilt from this field
 *                          when a task starts), or null; null for a settled action
 * @param dueAt             when the live timer fires (approval deadline, retry, lease + grace), or for a settled
 *                          action when its dedupe window ends; null when neither applies
 * @param createdAt         first seen (wall clock millis)
 * @param updatedAt         last transition (wall clock millis)
 * @param trace             W3C trace context of the proposal ({@code traceparent}, {@code tracestate}) that every
 *                          record the gate writes for this action carries; null when the proposal had none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ActionState(
        int v,
        Action action,
        Phase phase,
        ReasonCode reasonCode,
        String reason,
        String actionDigest,
        String decisionId,
        Long approvalExpiresAt,
        String approvedBy,
        List<AttemptRecord> attempts,
        String providerReceiptId,
        Resolver resolvedBy,
        String resolutionId,
        String timerKey,
        Long dueAt,
        long createdAt,
        long updatedAt,
        Map<String, String> trace) {

    public static final int VERSION = ActionStateSerde.LAYOUT;

    public ActionState {
        attempts = attempts == null ? List.of() : List.copyOf(attempts);
        trace = trace == null || trace.isEmpty() ? null : Map.copyOf(trace);
    }

    /**
     * A new action in phase {@link Phase#NEW}, to be moved on with {@link #to} before it is saved; it keeps the
     * current trace context (its proposal's, made current by the decode step).
     */
    public static ActionState fresh(Action action, String actionDigest, long now) {
        return new ActionState(VERSION, action, Phase.NEW, null, null, actionDigest, null, null, null, List.of(),
                null, null, null, null, null, now, now, Tracing.currentHeaders());
    }

    public String key() {
        return action.key();
    }

    /** The attempt in flight or last attempted, or null before the first reservation. */
    public AttemptRecord lastAttempt() {
        return attempts.isEmpty() ? null : attempts.get(attempts.size() - 1);
    }

    public int attemptCount() {
        return attempts.size();
    }

    /**
     * The one transition method: this action in phase {@code next}, with the given reason.
     *
     * @throws IllegalTransitionException when the lifecycle does not allow {@code phase -> next}
     */
    public ActionState to(Phase next, ReasonCode nextReasonCode, String nextReason, long now) {
        if (!phase.canMoveTo(next)) {
            throw new IllegalTransitionException(phase, next);
        }
        return new ActionState(v, next.terminal() ? action.settled() : action, next, nextReasonCode, nextReason,
                actionDigest, decisionId,
                approvalExpiresAt, approvedBy, attempts, providerReceiptId, resolvedBy, resolutionId, timerKey, dueAt,
                createdAt, now, trace);
    }

    /**
     * This action with the decision that settled its approval: {@code approver} is the approving decision's
     * {@code approver_subject}, null for a rejection.
     */
    public ActionState withApproval(String approvalDecisionId, String approver, Long expiresAt) {
        return new ActionState(v, action, phase, reasonCode, reason, actionDigest, approvalDecisionId, expiresAt,
                approver, attempts, providerReceiptId, resolvedBy, resolutionId, timerKey, dueAt, createdAt, updatedAt,
                trace);
    }

    public ActionState withResolution(Resolver by, String receiptId, String resolution) {
        return new ActionState(v, action, phase, reasonCode, reason, actionDigest, decisionId, approvalExpiresAt,
                approvedBy, attempts, receiptId != null ? receiptId : providerReceiptId, by, resolution, timerKey,
                dueAt, createdAt, updatedAt, trace);
    }

    public ActionState withAttempt(AttemptRecord attempt) {
        List<AttemptRecord> next = new ArrayList<>(attempts);
        if (!next.isEmpty() && next.get(next.size() - 1).attempt() == attempt.attempt()) {
            next.set(next.size() - 1, attempt);
        } else {
            next.add(attempt);
        }
        return new ActionState(v, action, phase, reasonCode, reason, actionDigest, decisionId, approvalExpiresAt,
                approvedBy, next, providerReceiptId, resolvedBy, resolutionId, timerKey, dueAt, createdAt, updatedAt,
                trace);
    }

    public ActionState withTimer(String nextTimerKey, Long nextDueAt) {
        return new ActionState(v, action, phase, reasonCode, reason, actionDigest, decisionId, approvalExpiresAt,
                approvedBy, attempts, providerReceiptId, resolvedBy, resolutionId, nextTimerKey, nextDueAt, createdAt,
                updatedAt, trace);
    }

    /** The frozen action as proposed (plus the fields the gate needs to act on it). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Action(
            String taskId,
            String toolCallId,
            long taskVersion,
            String orgId,
            String principalId,
            String profileId,
            long authorizationEpoch,
            String provider,
            String operation,
            String toolName,
            String toolSchemaHash,
            String inputJson,
            String inputDigest,
            String summary,
            String idempotencyKey,
            String businessOperationId,
            OriginRef origin,
            List<AttachmentRef> attachments) implements CheckedAction {

        public Action {
            attachments = attachments == null ? List.of() : List.copyOf(attachments);
        }

        /**
         * What a refused action keeps: what its receipt and the identity check of a redelivery need (ids, tool,
         * input digest, the count and digests of its attachments). Everything the refusal may have been about goes:
         * the input body, the summary, the idempotency and business keys, and every attachment reference (object
         * key, content type, owner), which may hold an upload URL with a signature, credentials or a local path. A
         * refused action sits in {@code gate-actions} and its changelog for the dedupe window, so nothing a proposal
         * was refused for may stay there.
         */
        public Action withoutInput() {
            return new Action(taskId, toolCallId, taskVersion, orgId, principalId, profileId, authorizationEpoch,
                    provider, operation, toolName, toolSchemaHash, null, inputDigest, null, null, null, origin,
                    attachments.stream().map(AttachmentRef::digestOnly).toList());
        }

        /**
         * What a settled action keeps: everything but the input body and the attachments' references (their
         * digests and sizes stay). Nothing dispatches it again; its receipt, a redelivery's identity check (the
         * action digest, which covers the input) and the read model (the summary) need no more. A refused action
         * keeps less, {@link #withoutInput()}.
         */
        public Action settled() {
            if (inputJson == null && attachments.stream().allMatch(r -> r.objectKey() == null)) {
                return this;
            }
            return new Action(taskId, toolCallId, taskVersion, orgId, principalId, profileId, authorizationEpoch,
                    provider, operation, toolName, toolSchemaHash, null, inputDigest, summary, idempotencyKey,
                    businessOperationId, origin, attachments.stream().map(AttachmentRef::digestOnly).toList());
        }

        /** The action key {@code task_id/tool_call_id}. */
        public String key() {
            return ActionKey.format(taskId, toolCallId);
        }

        public String conversationId() {
            return origin == null ? null : origin.conversationId();
        }

        @Override
        public boolean proposedIdempotencyKey() {
            return idempotencyKey != null && !idempotencyKey.isBlank()
                    && !idempotencyKey.equals(StateRecords.derivedIdempotencyKey(key()));
        }

        /** Ids and tool only: the input and summary are never rendered, so a stray log line cannot leak them. */
        @Override
        public String toString() {
            return "Action[" + key() + ", " + provider + ":" + toolName + ":" + operation
                    + ", input " + inputDigest + "]";
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record OriginRef(String conversationId, String turnId, String assistantMessageId, String humanMessageId)
            implements CheckedAction.Origin {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record AttachmentRef(String objectKey, String sha256, long sizeBytes, String contentType,
                                String ownerInvocationId) {

        private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

        /** The digest and size only, and the digest only when it is one (a refused value may be anything). */
        public AttachmentRef digestOnly() {
            return new AttachmentRef(null, sha256 != null && SHA256_HEX.matcher(sha256).matches() ? sha256 : null,
                    sizeBytes, null, null);
        }
    }

    /**
     * One reserved attempt. {@code status} is null while it is in flight; the outcome's details are kept forever
     * (invariant 6).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record AttemptRecord(
            int attempt,
            long reservedAt,
            long leaseExpiresAt,
            DispatchResult.Status status,
            Boolean dispatched,
            Integer httpStatus,
            String errorCode,
            Long startedAt,
            Long finishedAt) {

        public static AttemptRecord reserved(int attempt, long reservedAt, long leaseExpiresAt) {
            return new AttemptRecord(attempt, reservedAt, leaseExpiresAt, null, null, null, null, null, null);
        }

        public boolean settled() {
            return status != null;
        }

        public AttemptRecord observed(DispatchResult.Status outcome, boolean wasDispatched, Integer http, String error,
                                      Long started, Long finished) {
            return new AttemptRecord(attempt, reservedAt, leaseExpiresAt, outcome, wasDispatched, http, error,
                    started, finished);
        }
    }

    /** Who settled an action; each constant names its wire form, the receipt's {@code resolved_by}. */
    public enum Resolver {
        GATE(ResolvedBy.GATE), RECONCILER(ResolvedBy.RECONCILER), OWNER(ResolvedBy.OWNER);

        private final ResolvedBy wire;

        Resolver(ResolvedBy wire) {
            this.wire = wire;
        }

        /** The receipt's {@code resolved_by}. */
        public ResolvedBy wire() {
            return wire;
        }
    }
}
