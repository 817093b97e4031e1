package io.actiongate.policy;

import java.util.Optional;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.Grant;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.contract.ReasonCode;

/**
 * Fail-closed routing of an admitted action: what it needs before its first reservation. Only the trusted
 * {@link ToolDescriptor} and the provider's own classification count ({@link PolicyChecks.Verdict#trustedRead()});
 * the proposal's {@code claimed_annotations}, input and summary never do (invariant 4).
 */
public enum ApprovalRoute {
    /** Approval NONE and a trusted read, or an active origin's own request. */
    AUTO_APPROVE,
    /** Anything else: a signed human decision. */
    HUMAN_APPROVAL,
    /**
     * ORIGIN_REQUEST without an active, matching, chat-enabled origin, or whose origin lacks the human and
     * assistant message ids: NO_ACTIVE_HUMAN_SOURCE.
     */
    NO_ACTIVE_HUMAN_SOURCE;

    /** The route of {@code a} on one policy snapshot; {@code trustedRead} is the provider's verdict. */
    public static ApprovalRoute of(CheckedAction a, PolicySnapshot policy, boolean trustedRead) {
        ToolDescriptor tool = policy.tool().orElse(null);
        if (tool == null) {
            return HUMAN_APPROVAL;
        }
        if (TrustedRead.needsNobody(tool, trustedRead)) {
            return AUTO_APPROVE;
        }
        if (tool.getApproval() == ApprovalMode.ORIGIN_REQUEST) {
            return originRequest(a, policy, true) ? AUTO_APPROVE : NO_ACTIVE_HUMAN_SOURCE;
        }
        return HUMAN_APPROVAL;
    }

    /**
     * For an action no human approved, before a further reservation: its route must still authorize it. A read
     * with approval NONE must still be a trusted read; an origin request's origin must still be active and
     * chat-enabled (its turn may have moved on: the owner's message was on the action's turn). Anything else
     * needs a fresh proposal and a signed approval.
     */
    static Optional<Rejection> stillAuthorized(CheckedAction a, PolicySnapshot policy, boolean trustedRead) {
        ToolDescriptor tool = policy.tool().orElse(null);
        if (tool != null && TrustedRead.needsNobody(tool, trustedRead)) {
            return Optional.empty();
        }
        if (tool != null && tool.getApproval() == ApprovalMode.ORIGIN_REQUEST) {
            return originRequest(a, policy, false) ? Optional.empty()
                    : Optional.of(new Rejection(ReasonCode.NO_ACTIVE_HUMAN_SOURCE,
                            "origin request without an active, chat-enabled origin"));
        }
        return Optional.of(new Rejection(ReasonCode.OPERATION_REFUSED,
                "no longer a trusted read with approval NONE: an effect needs a fresh proposal and a signed approval"));
    }

    private static boolean originRequest(CheckedAction a, PolicySnapshot policy, boolean sameTurn) {
        CheckedAction.Origin ref = a.origin();
        if (ref == null || blank(ref.humanMessageId()) || blank(ref.assistantMessageId())) {
            return false;
        }
        if (!policy.grant().map(Grant::getChatEnabled).orElse(false)) {
            return false;
        }
        Optional<OriginState> origin = policy.origin();
        return policy.originOwnedBy(a.orgId()) // another org's conversation never speaks for this action
                && origin.isPresent()
                && origin.get().getStatus() == LifecycleStatus.ACTIVE
                && (!sameTurn || ref.turnId().equals(origin.get().getActiveTurnId()));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
