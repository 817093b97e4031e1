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
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.policy.PolicySnapshot;
import io.actiongate.policy.Rejection;

/**
 * The policy checks of docs/contract.md section 4, run at admission and again right before every reservation
 * (invariant 3), on one {@link PolicySnapshot} per record. Absent evidence fails: no descriptor, integration,
 * grant, task state or epoch is a refusal. The provider's own classification ({@link OperationCheck}) runs right
 * after the descriptor checks, and a read-only grant admits only trusted reads. Reasons never repeat proposal
 * fields: they go into receipts.
 */
public final class PolicyChecks {

    private PolicyChecks() {
    }

    /** What the checks found: a refusal, or whether the action is a trusted read. */
    public record Verdict(Rejection refusal, boolean trustedRead) {

        static Verdict refused(ReasonCode code, String reason) {
            return new Verdict(new Rejection(code, reason), false);
        }

        public Optional<Rejection> rejection() {
            return Optional.ofNullable(refusal);
        }
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

    /** Every policy check, in order, on {@code policy}; the verdict's refusal is null when the action may proceed. */
    public static Verdict check(ActionState.Action a, PolicySnapshot policy, OperationClassifiers operations) {
        Optional<Rejection> rejection = toolMatches(a, policy.tool());
        if (rejection.isPresent()) {
            return new Verdict(rejection.get(), false);
        }
        ToolDescriptor t = policy.tool().get();
        if (!t.getEnabled()) {
            return Verdict.refused(ReasonCode.TOOL_DISABLED, "the tool is disabled");
        }
        if (!t.getSchemaHash().equals(a.toolSchemaHash())) {
            return Verdict.refused(ReasonCode.TOOL_SCHEMA_CHANGED,
                    "tool_schema_hash differs from the current descriptor");
        }
        OperationCheck.Result operation = OperationCheck.check(a, t, operations);
        if (operation.refusal() != null) {
            return new Verdict(operation.refusal(), false);
        }
        boolean trustedRead = operation.trustedRead();
        if (!policy.integration().map(Integration::getEnabled).orElse(false)) {
            return Verdict.refused(ReasonCode.INTEGRATION_DISABLED,
                    "the org's integration with this provider is not enabled");
        }
        Optional<Grant> grant = policy.grant();
        if (grant.isEmpty() || !grant.get().getTools().contains(a.toolName())) {
            return Verdict.refused(ReasonCode.PROFILE_NOT_GRANTED, "the profile is not granted this tool");
        }
        if (grant.get().getMode() == GrantMode.READ_ONLY && !trustedRead) {
            return Verdict.refused(ReasonCode.READ_ONLY_MODE, "profile is read-only and the action is no trusted read");
        }
        Optional<TaskState> task = policy.task();
        Optional<Rejection> notOwned = policy.ownership(a.orgId());
        if (task.isPresent() && notOwned.isPresent()) {
            // admission refuses this before holding the key; here it is a recheck of a held action
            return new Verdict(notOwned.get(), false);
        }
        if (task.isPresent() && task.get().getStatus() != LifecycleStatus.ACTIVE) {
            return Verdict.refused(ReasonCode.TASK_CANCELLED, "task is " + task.get().getStatus());
        }
        if (task.isEmpty() || task.get().getVersion() != a.taskVersion()) {
            return Verdict.refused(ReasonCode.TASK_VERSION_CHANGED, task.isEmpty() ? "no task state"
                    : "task_version differs from the task's current version");
        }
        Optional<OriginState> origin = policy.origin();
        if (origin.isPresent() && origin.get().getStatus() != LifecycleStatus.ACTIVE) {
            return Verdict.refused(ReasonCode.ORIGIN_CANCELLED, "origin is " + origin.get().getStatus());
        }
        Optional<AuthorizationEpoch> epoch = policy.epoch();
        if (epoch.isEmpty() || epoch.get().getEpoch() != a.authorizationEpoch()) {
            return Verdict.refused(ReasonCode.AUTHORIZATION_EPOCH_CHANGED, epoch.isEmpty() ? "no authorization epoch"
                    : "authorization_epoch differs from the org's current epoch");
        }
        return new Verdict(null, trustedRead);
    }

    /**
     * Recheck before a reservation: every policy check and the provider's classification again, the approval's
     * expiry, and for an action no human approved, that its route still authorizes it ({@link Classifier#stillAuthorized}).
     */
    public static Verdict recheck(ActionState state, PolicySnapshot policy, OperationClassifiers operations,
                                  long now) {
        Verdict verdict = check(state.action(), policy, operations);
        if (verdict.refusal() != null) {
            return verdict;
        }
        if (state.approvalExpiresAt() != null && state.approvalExpiresAt() <= now) {
            return Verdict.refused(ReasonCode.APPROVAL_EXPIRED, "the approval expired before the reservation");
        }
        if (state.decisionId() == null) {
            Optional<Rejection> unauthorized = Classifier.stillAuthorized(state.action(), policy,
                    verdict.trustedRead());
            if (unauthorized.isPresent()) {
                return new Verdict(unauthorized.get(), false);
            }
        }
        return verdict;
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
