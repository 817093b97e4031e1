package io.actiongate.policy;

import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

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
 * The policy checks of docs/contract.md section 4, run at admission and again right before every reservation
 * (invariant 3), on one {@link PolicySnapshot} per record. Absent evidence fails: no descriptor, integration,
 * grant, task state or epoch is a refusal. The provider's own classification ({@link ProviderClassifier}) runs right
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

    /** The tool's {@code max_input_bytes}, or {@code fallback} when there is no tool or it sets no positive limit. */
    public static int maxInputBytes(Optional<ToolDescriptor> tool, int fallback) {
        return tool.map(ToolDescriptor::getMaxInputBytes).filter(n -> n > 0).orElse(fallback);
    }

    /** Every policy check, in order, on {@code policy}, the provider reading {@code a}'s input text. */
    public static Verdict check(CheckedAction a, PolicySnapshot policy, ProviderClassifier provider) {
        return check(a, policy, provider, null);
    }

    /**
     * Every policy check, in order, on {@code policy}; the verdict's refusal is null when the action may proceed.
     * {@code parsedInput}: the admission's strict parse of {@code a}'s input, handed to the provider (or null).
     */
    public static Verdict check(CheckedAction a, PolicySnapshot policy, ProviderClassifier provider,
                                JsonNode parsedInput) {
        Optional<ToolDescriptor> tool = policy.tool();
        if (tool.isEmpty()) {
            return Verdict.refused(ReasonCode.UNKNOWN_PROVIDER_METHOD, "no tool descriptor for this provider and tool");
        }
        ToolDescriptor t = tool.get();
        if (!a.provider().equals(t.getProvider()) || !a.operation().equals(t.getOperation())
                || !a.toolName().equals(t.getToolName())) {
            return Verdict.refused(ReasonCode.UNKNOWN_PROVIDER_METHOD,
                    "provider/operation differ from the tool descriptor");
        }
        if (!t.getEnabled()) {
            return Verdict.refused(ReasonCode.TOOL_DISABLED, "the tool is disabled");
        }
        if (!t.getSchemaHash().equals(a.toolSchemaHash())) {
            return Verdict.refused(ReasonCode.TOOL_SCHEMA_CHANGED,
                    "tool_schema_hash differs from the current descriptor");
        }
        Verdict operation = OperationCheck.check(a, t, provider, parsedInput);
        if (operation.refusal() != null) {
            return operation;
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
     * expiry ({@code approvalExpiresAt}, null: none), and for an action no human approved, that its route still
     * authorizes it ({@link ApprovalRoute#stillAuthorized}).
     */
    public static Verdict recheck(CheckedAction a, Long approvalExpiresAt, boolean humanApproved,
                                  PolicySnapshot policy, ProviderClassifier provider, long now) {
        Verdict verdict = check(a, policy, provider);
        if (verdict.refusal() != null) {
            return verdict;
        }
        if (approvalExpiresAt != null && approvalExpiresAt <= now) {
            return Verdict.refused(ReasonCode.APPROVAL_EXPIRED, "the approval expired before the reservation");
        }
        if (!humanApproved) {
            Optional<Rejection> unauthorized = ApprovalRoute.stillAuthorized(a, policy, verdict.trustedRead());
            if (unauthorized.isPresent()) {
                return new Verdict(unauthorized.get(), false);
            }
        }
        return verdict;
    }

    /**
     * Whether an action no human approved is a repeat-safe read on {@code policy}: it passes every policy check, the
     * provider classifies it as a trusted read and its tool needs no approval. Such an action may be attempted again
     * (same idempotency key) after its attempt provably did not happen.
     */
    public static boolean repeatSafeRead(CheckedAction a, PolicySnapshot policy, ProviderClassifier provider) {
        if (a.inputJson() == null) {
            return false;
        }
        Verdict verdict = check(a, policy, provider);
        return verdict.refusal() == null
                && policy.tool().map(t -> TrustedRead.needsNobody(t, verdict.trustedRead())).orElse(false);
    }
}
