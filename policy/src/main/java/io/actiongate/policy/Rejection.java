package io.actiongate.policy;

import io.actiongate.contract.ReasonCode;

/** A refusal: the exact reason code and a redacted detail (names fields and limits, never input text). */
public record Rejection(ReasonCode code, String reason) {
}
