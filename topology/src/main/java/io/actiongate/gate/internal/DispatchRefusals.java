package io.actiongate.gate.internal;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.contract.ReasonCode;
import io.actiongate.storage.AttachmentDispatchGuard;
import io.actiongate.storage.Verification;

/**
 * What kind of refusal an executor's {@code NOT_DISPATCHED} outcome reports, for the receipt's reason. The receipt
 * says the kind (hash mismatch, size mismatch, missing, storage unavailable, ...) from a closed list, read from the
 * outcome's error code and the {@code attachments[i]: kind:} prefix of its detail; the rest of the detail (object
 * keys, store messages) never reaches a receipt, so the reason stays as redacted as every other.
 */
final class DispatchRefusals {

    private DispatchRefusals() {
    }

    /** E.g. {@code attachments[0]: hash mismatch}; never null. */
    static String kind(AttemptOutcome o) {
        String code = o.getErrorCode();
        String detail = o.getErrorDetail();
        if (code == null) {
            return "no reason given";
        }
        if (code.equals(ReasonCode.TOOL_SCHEMA_CHANGED.name())) {
            return detail != null && detail.startsWith("no tool descriptor") ? "no tool descriptor"
                    : "tool schema changed";
        }
        if (code.equals(ReasonCode.ATTACHMENT_INVALID.name())) {
            return Verification.Failed.kindOf(detail).map(Verification.Failed::kind)
                    .orElse("attachments not verified");
        }
        if (code.equals(AttachmentDispatchGuard.STORAGE_UNAVAILABLE)) {
            return Verification.Failed.kindOf(detail).map(Verification.Failed::kind)
                    .orElse("attachments: storage unavailable");
        }
        if (code.equals(AttachmentDispatchGuard.POLICY_UNAVAILABLE)) {
            return "tool descriptors still loading";
        }
        if (code.equals(ReasonCode.LEASE_EXPIRED.name())) {
            return "lease expired before dispatch";
        }
        if (code.equals(ReasonCode.UNKNOWN_PROVIDER_METHOD.name())) {
            return "no connector for the provider";
        }
        return OutcomeProcessor.safeErrorCode(code);
    }
}
