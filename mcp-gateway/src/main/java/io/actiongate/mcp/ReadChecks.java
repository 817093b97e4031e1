package io.actiongate.mcp;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.avro.ToolDescriptor;
import io.actiongate.contract.ContractLimits;
import io.actiongate.contract.ReasonCode;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.PolicyChecks;
import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.scan.CredentialScanner;

/**
 * The input checks a trusted read passes before the gateway calls the upstream: the same the gate applies to a
 * proposal at admission, on the gateway's policy view. In order: the tool's {@code max_input_bytes}
 * ({@code INPUT_TOO_LARGE}), the gate's credential scanner ({@code CREDENTIAL_MATERIAL}), the session's task
 * (named, of the host's org, known and {@code ACTIVE}: {@code INVALID_IDENTIFIER}, {@code TASK_NOT_OWNED},
 * {@code TASK_VERSION_CHANGED}, {@code TASK_CANCELLED})
 * and the org's authorization epoch ({@code AUTHORIZATION_EPOCH_CHANGED}). A refusal names the check, never the input.
 */
final class ReadChecks {

    /** Why a read was refused. */
    record Refusal(ReasonCode code, String reason) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final PolicyTopicReader policy;
    private final CredentialScanner scanner = CredentialScanner.defaults();

    ReadChecks(PolicyTopicReader policy) {
        this.policy = policy;
    }

    /** @param task the session's task ({@link CallIdentity#task}), null when the request names none */
    Optional<Refusal> check(HostIdentity identity, String task, ToolDescriptor tool,
            Map<String, Object> arguments) {
        String json;
        try {
            json = JSON.writeValueAsString(arguments);
        } catch (JsonProcessingException e) {
            return Optional.of(new Refusal(ReasonCode.SCHEMA_INVALID, "the arguments are not JSON"));
        }
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        // no fallback: a descriptor without a positive limit admits no arguments
        int limit = PolicyChecks.maxInputBytes(Optional.of(tool), 0);
        if (bytes > limit) {
            return Optional.of(new Refusal(ReasonCode.INPUT_TOO_LARGE, "the arguments are " + bytes
                    + " bytes, above the tool's max_input_bytes " + limit));
        }
        Optional<io.actiongate.scan.Finding> finding = scanner.scanJson(json);
        if (finding.isPresent()) {
            return Optional.of(new Refusal(ReasonCode.CREDENTIAL_MATERIAL, "credential material ("
                    + finding.get().detector() + ") at " + (finding.get().location().isEmpty() ? "/"
                    : finding.get().location())));
        }
        if (task == null || !ActionKey.isValidId(task)) {
            return Optional.of(new Refusal(ReasonCode.INVALID_IDENTIFIER, "a read needs the session's task: the "
                    + BearerAuthFilter.TASK_HEADER + " header (" + ContractLimits.ID_PATTERN.pattern()
                    + "), the token's task claim or " + GatewayConfig.SESSION_TASK_CONFIG));
        }
        String taskId = task;
        if (!policy.ownsTask(identity.orgId(), taskId)) {
            // as for proposals: a task of another org and an unknown one are answered alike
            return Optional.of(new Refusal(ReasonCode.TASK_NOT_OWNED,
                    "the session's task is not a task of this host's org"));
        }
        Optional<Boolean> active = policy.taskActive(taskId);
        if (active.isEmpty()) {
            return Optional.of(new Refusal(ReasonCode.TASK_VERSION_CHANGED, "the task is unknown"));
        }
        if (!active.get()) {
            return Optional.of(new Refusal(ReasonCode.TASK_CANCELLED, "the task is no longer active"));
        }
        if (policy.epoch(identity.orgId()).isEmpty()) {
            return Optional.of(new Refusal(ReasonCode.AUTHORIZATION_EPOCH_CHANGED,
                    "the org has no authorization epoch"));
        }
        return Optional.empty();
    }
}
