package io.actiongate.contract;

/**
 * The reason codes of docs/contract.md section 4, exactly as they travel in {@code Receipt.reason_code} and
 * {@code DeadLetter.reason_code}. Every refusal in actiongate carries one of these; never a free string.
 */
public enum ReasonCode {
    INVALID_IDENTIFIER,
    KEY_MISMATCH,
    SCHEMA_INVALID,
    INPUT_TOO_LARGE,
    DIGEST_MISMATCH,
    UNKNOWN_PROVIDER_METHOD,
    TOOL_DISABLED,
    TOOL_SCHEMA_CHANGED,
    INTEGRATION_DISABLED,
    PROFILE_NOT_GRANTED,
    READ_ONLY_MODE,
    NO_ACTIVE_HUMAN_SOURCE,
    ORIGIN_CANCELLED,
    TASK_CANCELLED,
    TASK_VERSION_CHANGED,
    TASK_NOT_OWNED,
    AUTHORIZATION_EPOCH_CHANGED,
    CREDENTIAL_MATERIAL,
    ATTACHMENT_INVALID,
    APPROVAL_SIGNATURE_INVALID,
    APPROVAL_DIGEST_MISMATCH,
    APPROVAL_EXPIRED,
    APPROVAL_REUSED,
    APPROVER_NOT_AUTHORIZED,
    LEASE_EXPIRED,
    RATE_LIMITED,
    RETRIES_EXHAUSTED,
    PROVIDER_REJECTED,
    OPERATION_REFUSED
}
