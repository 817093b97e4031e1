package io.actiongate.policy;

import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.ToolDescriptor;
import io.actiongate.connector.spi.Classification;
import io.actiongate.contract.ReasonCode;

/**
 * The provider's own classification of an action (docs/contract.md section 4, "Classification"), asked at admission
 * and again before each reservation. Fails closed: no connector for the provider, an unsupported operation or a
 * classifier that throws is {@code UNKNOWN_PROVIDER_METHOD}; refused operations are {@code OPERATION_REFUSED}; a
 * failed validation is {@code SCHEMA_INVALID}. A {@code READ} is trusted read evidence only when the connector
 * classifies per input or the trusted descriptor says {@code read_only_hint=true}. Reasons name the class, never
 * the connector's detail (it may quote the input).
 */
final class OperationCheck {

    /** The provider whose effects must carry an idempotency key and a summary. */
    static final String CLI = "cli";

    private static final Logger LOG = LoggerFactory.getLogger(OperationCheck.class);

    private OperationCheck() {
    }

    static PolicyChecks.Verdict check(CheckedAction a, ToolDescriptor tool, ProviderClassifier provider,
                                      JsonNode parsedInput) {
        Optional<ProviderClassifier.Answer> answered;
        try {
            answered = provider.classify(a, parsedInput);
        } catch (RuntimeException e) {
            // the exception's message may quote the input: name its class only
            LOG.warn("classifier of provider {} failed on {} ({}); refused", a.provider(), a,
                    e.getClass().getSimpleName());
            return refused(ReasonCode.UNKNOWN_PROVIDER_METHOD, "the provider's classifier failed");
        }
        if (answered.isEmpty()) {
            return refused(ReasonCode.UNKNOWN_PROVIDER_METHOD, "no connector is configured on the gate for this provider");
        }
        ProviderClassifier.Answer answer = answered.get();
        switch (answer.kind()) {
            case REJECTED_AUTH_OR_CONFIG:
                return refused(ReasonCode.OPERATION_REFUSED,
                        "the provider refuses this operation: it touches credentials or configuration");
            case REJECTED_UNBOUNDED:
                return refused(ReasonCode.OPERATION_REFUSED,
                        "the provider refuses this operation: it has no bound in time or scope");
            case UNSUPPORTED:
                return refused(ReasonCode.UNKNOWN_PROVIDER_METHOD, "the provider does not support this operation");
            case READ, EFFECT:
                break;
            default:
                return refused(ReasonCode.UNKNOWN_PROVIDER_METHOD, "unknown classification");
        }
        if (!answer.valid()) {
            return refused(ReasonCode.SCHEMA_INVALID, "input_json fails the provider's validation");
        }
        if (answer.kind() == Classification.Kind.EFFECT && CLI.equals(a.provider())
                && (!a.proposedIdempotencyKey() || blank(a.summary()))) {
            return refused(ReasonCode.SCHEMA_INVALID, "a CLI effect needs an idempotency_key and a summary");
        }
        boolean trustedRead = TrustedRead.evidence(answer.kind() == Classification.Kind.READ, answer.perInput(),
                tool);
        return new PolicyChecks.Verdict(null, trustedRead);
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static PolicyChecks.Verdict refused(ReasonCode code, String reason) {
        return PolicyChecks.Verdict.refused(code, reason);
    }
}
