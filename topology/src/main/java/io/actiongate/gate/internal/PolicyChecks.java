package io.actiongate.gate.internal;

import java.util.Optional;

import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.contract.ReasonCode;

/**
 * The policy checks of ARCHITECTURE.md section 4, run at admission and again right before every reservation
 * (invariant 3). Absent evidence fails: no descriptor, integration, grant, task state or epoch is a refusal.
 * Reasons never repeat proposal fields: they go into receipts.
 */
public final class PolicyChecks {

    private PolicyChecks() {
    }

    /** Whether the descriptor names this provider and operation (UNKNOWN_PROVIDER_METHOD otherwise). */
    public static Optional<Rejection> toolMatches(ActionState.Action a, Optional<ToolDescriptor> tool) {
        if (tool.isEmpty()) {
            return reject(ReasonCode.UNKNOWN_PROVIDER_METHOD, "no tool descriptor for this provider and tool");
        }
        ToolDescriptor t = tool.get();
        if (!a.provider().equals(t.getProvider()) || !a.operation().equals(t.getOperation())
                || !a.toolName().equals(t.getToolName())) {
            return reject(ReasonCode.UNKNOWN_PROVIDER_METHOD, "provider/operation differ from the tool descriptor");
        }
        return Optional.empty();
    }

    /** Every policy check, in order; empty when the action may proceed. */
    public static Optional<Rejection> check(ActionState.Action a, PolicyView policy) {
        Optional<ToolDescriptor> tool = policy.tool(a.provider(), a.toolName());
        Optional<Rejection> rejection = toolMatches(a, tool);
        if (rejection.isPresent()) {
            return rejection;
        }
        ToolDescriptor t = tool.get();
        if (!t.getEnabled()) {
            return reject(ReasonCode.TOOL_DISABLED, "the tool is disabled");
        }
        if (!t.getSchemaHash().equals(a.toolSchemaHash())) {
            return reject(ReasonCode.TOOL_SCHEMA_CHANGED, "tool_schema_hash differs from the current descriptor");
        }
        if (!policy.integration(a.orgId(), a.provider()).map(Integration::getEnabled).orElse(false)) {
            return reject(ReasonCode.INTEGRATION_DISABLED, "the org's integration with this provider is not enabled");
        }
        Optional<Grant> grant = policy.grant(a.orgId(), a.profileId());
        if (grant.isEmpty() || !grant.get().getTools().contains(a.toolName())) {
            return reject(ReasonCode.PROFILE_NOT_GRANTED, "the profile is not granted this tool");
        }
        if (grant.get().getMode() == GrantMode.READ_ONLY && !readOnly(t)) {
            return reject(ReasonCode.READ_ONLY_MODE, "profile is read-only and the tool is not");
        }
        Optional<TaskState> task = policy.task(a.taskId());
        if (task.isPresent() && task.get().getStatus() != LifecycleStatus.ACTIVE) {
            return reject(ReasonCode.TASK_CANCELLED, "task is " + task.get().getStatus());
        }
        if (task.isEmpty() || task.get().getVersion() != a.taskVersion()) {
            return reject(ReasonCode.TASK_VERSION_CHANGED, task.isEmpty() ? "no task state"
                    : "task_version differs from the task's current version");
        }
        Optional<OriginState> origin = policy.origin(a.conversationId());
        if (origin.isPresent() && origin.get().getStatus() != LifecycleStatus.ACTIVE) {
            return reject(ReasonCode.ORIGIN_CANCELLED, "origin is " + origin.get().getStatus());
        }
        Optional<AuthorizationEpoch> epoch = policy.epoch(a.orgId());
        if (epoch.isEmpty() || epoch.get().getEpoch() != a.authorizationEpoch()) {
            return reject(ReasonCode.AUTHORIZATION_EPOCH_CHANGED, epoch.isEmpty() ? "no authorization epoch"
                    : "authorization_epoch differs from the org's current epoch");
        }
        return Optional.empty();
    }

    /** Recheck before a reservation: every policy check plus the approval's expiry. */
    public static Optional<Rejection> recheck(ActionState state, PolicyView policy, long now) {
        Optional<Rejection> rejection = check(state.action(), policy);
        if (rejection.isPresent()) {
            return rejection;
        }
        if (state.approvalExpiresAt() != null && state.approvalExpiresAt() <= now) {
            return reject(ReasonCode.APPROVAL_EXPIRED, "the approval expired before the reservation");
        }
        return Optional.empty();
    }

    /** Only an explicit read_only_hint=true counts; null or false is consequential. */
    public static boolean readOnly(ToolDescriptor t) {
        return Boolean.TRUE.equals(t.getReadOnlyHint());
    }

    /** The phase a refusal at a recheck leads to. */
    public static Phase phaseFor(ReasonCode code) {
        return switch (code) {
            case TASK_CANCELLED, ORIGIN_CANCELLED -> Phase.CANCELLED;
            case APPROVAL_EXPIRED -> Phase.EXPIRED;
            default -> Phase.REJECTED;
        };
    }

    private static Optional<Rejection> reject(ReasonCode code, String reason) {
        return Optional.of(new Rejection(code, reason));
    }
}
