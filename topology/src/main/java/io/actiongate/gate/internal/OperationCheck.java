package io.actiongate.gate.internal;

import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.ToolDescriptor;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Validation;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.policy.Rejection;
import io.actiongate.policy.TrustedRead;

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

    /** A refusal (null when allowed) and whether the action is a trusted read. */
    record Result(Rejection refusal, boolean trustedRead) {
    }

    private OperationCheck() {
    }

    static Result check(ActionState.Action a, ToolDescriptor tool, OperationClassifiers operations) {
        Optional<Classification> classified;
        Optional<Validation> validated;
        boolean perInput;
        try {
            classified = operations.classify(a.provider(), a.operation(), a.inputJson());
            validated = classified.isEmpty() ? Optional.empty()
                    : operations.validate(a.provider(), a.operation(), a.inputJson());
            perInput = operations.classifiesPerInput(a.provider());
        } catch (RuntimeException e) {
            // the exception's message may quote the input: name its class only
            LOG.warn("classifier of provider {} failed on {} ({}); refused", a.provider(), a,
                    e.getClass().getSimpleName());
            return refused(ReasonCode.UNKNOWN_PROVIDER_METHOD, "the provider's classifier failed");
        }
        if (classified.isEmpty() || validated.isEmpty()) {
            return refused(ReasonCode.UNKNOWN_PROVIDER_METHOD, "no connector is configured on the gate for this provider");
        }
        Classification c = classified.get();
        switch (c.kind()) {
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
        if (!validated.get().valid()) {
            return refused(ReasonCode.SCHEMA_INVALID, "input_json fails the provider's validation");
        }
        if (c.kind() == Classification.Kind.EFFECT && CLI.equals(a.provider())
                && (!proposedIdempotencyKey(a) || blank(a.summary()))) {
            return refused(ReasonCode.SCHEMA_INVALID, "a CLI effect needs an idempotency_key and a summary");
        }
        boolean trustedRead = TrustedRead.evidence(c.kind() == Classification.Kind.READ, perInput, tool);
        return new Result(null, trustedRead);
    }

    /** Whether the proposal carried its own key (the gate derives one from the action key otherwise). */
    private static boolean proposedIdempotencyKey(ActionState.Action a) {
        return !blank(a.idempotencyKey()) && !a.idempotencyKey().equals(
                StateRecords.derivedIdempotencyKey(a.key()));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static Result refused(ReasonCode code, String reason) {
        return new Result(new Rejection(code, reason), false);
    }
}
