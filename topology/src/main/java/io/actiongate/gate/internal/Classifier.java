package io.actiongate.gate.internal;

import java.util.Optional;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.Grant;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.ToolDescriptor;

/**
 * Fail-closed classification of an admitted action. Only the trusted {@link ToolDescriptor} counts; the
 * proposal's {@code claimed_annotations}, input and summary never do (invariant 4).
 */
public final class Classifier {

    /** What an admitted action needs before its first reservation. */
    public enum Route {
        /** Trusted read-only tool with approval NONE, or an active origin's own request. */
        AUTO_APPROVE,
        /** Anything else: a signed human decision. */
        HUMAN_APPROVAL,
        /** ORIGIN_REQUEST without an active, matching, chat-enabled origin: NO_ACTIVE_HUMAN_SOURCE. */
        NO_ACTIVE_HUMAN_SOURCE
    }

    private Classifier() {
    }

    public static Route classify(ActionState.Action a, ToolDescriptor tool, Grant grant, PolicyView policy) {
        if (tool.getApproval() == ApprovalMode.NONE && PolicyChecks.readOnly(tool)) {
            return Route.AUTO_APPROVE;
        }
        if (tool.getApproval() == ApprovalMode.ORIGIN_REQUEST) {
            return originRequestApproved(a, grant, policy) ? Route.AUTO_APPROVE : Route.NO_ACTIVE_HUMAN_SOURCE;
        }
        return Route.HUMAN_APPROVAL;
    }

    private static boolean originRequestApproved(ActionState.Action a, Grant grant, PolicyView policy) {
        if (a.origin() == null || !grant.getChatEnabled()) {
            return false;
        }
        Optional<OriginState> origin = policy.origin(a.origin().conversationId());
        return origin.isPresent()
                && origin.get().getStatus() == LifecycleStatus.ACTIVE
                && a.origin().turnId().equals(origin.get().getActiveTurnId());
    }
}
