package io.actiongate.http;

/**
 * Why {@code POST /v1/proposals} refused a body with 400 before publishing anything (docs/contract.md section 7).
 * The wire value is the constant's name, in the answer's {@code reason_code}.
 */
public enum ProposalRefusal {
    /** The body is not one JSON object (syntax error, trailing data, another type at the top). */
    INVALID_JSON,
    /** A JSON object, at any depth, names the same member twice: which one counts would be the parser's guess. */
    DUPLICATE_KEY,
    /** A member the API does not define (a typo would otherwise be dropped in silence). */
    UNKNOWN_MEMBER,
    /** A required member is missing or blank. */
    MISSING_MEMBER,
    /** A member has the wrong type or an invalid value. */
    INVALID_MEMBER,
    /** {@code input} is not a JSON object. */
    INPUT_NOT_OBJECT,
    /** {@code task_id} or {@code tool_call_id} is not of the id alphabet. */
    INVALID_ID,
    /** The body is larger than {@code http.proposals.max.body.bytes}. */
    BODY_TOO_LARGE,
    /** The host's {@code input_digest} is not the digest of the {@code input} the server read (RFC 8785). */
    DIGEST_MISMATCH
}
