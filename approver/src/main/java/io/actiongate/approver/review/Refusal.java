package io.actiongate.approver.review;

import io.actiongate.contract.ReasonCode;

/**
 * Why the approval service will not publish a decision, with the words a person reads on the page and the contract
 * reason code (docs/contract.md section 4, "Reason codes") that the gate would use for the same fault, where there is one. Every
 * refusal is written to the audit log (never with an input body).
 */
public enum Refusal {
    UNKNOWN_ACTION(null, Texts.UNKNOWN_ACTION),
    NOT_WAITING(ReasonCode.APPROVAL_REUSED, "This action is not waiting for a decision of this kind."),
    ACTION_EXPIRED(ReasonCode.APPROVAL_EXPIRED, "The wait for approval has ended: the action expired."),
    INPUT_DIGEST_MISMATCH(ReasonCode.DIGEST_MISMATCH, "The proposal's input does not hash to its input_digest, or "
            + "not to the digest the gate recorded. What would be approved is not what the gate froze."),
    ACTION_DIGEST_MISMATCH(ReasonCode.APPROVAL_DIGEST_MISMATCH, "The action digest re-derived from the proposal "
            + "shown here differs from the digest the gate froze. What you would see is not what would be sent."),
    FROZEN_ACTION_UNKNOWN(ReasonCode.APPROVAL_DIGEST_MISMATCH, "The approval service does not know the proposal the "
            + "gate froze under this action key (only a different one), so it shows nothing and cannot be decided."),
    RECEIPT_MISMATCH(ReasonCode.APPROVAL_DIGEST_MISMATCH, "The gate's receipt names a different tool, provider, "
            + "operation or organisation than the proposal."),
    /** Reads exactly as {@link #UNKNOWN_ACTION} on the page, so that another org's action keys cannot be probed. */
    OTHER_ORG(ReasonCode.APPROVER_NOT_AUTHORIZED, Texts.UNKNOWN_ACTION),
    NOT_AN_APPROVER(ReasonCode.APPROVER_NOT_AUTHORIZED, "You are not on the list of people who may decide for "
            + "this organisation."),
    SENDER_UNKNOWN(ReasonCode.UNKNOWN_PROVIDER_METHOD, "No sender account is configured in the approval service "
            + "for this provider, so the page cannot show who would send it."),
    INPUT_UNREADABLE(ReasonCode.SCHEMA_INVALID, "The input cannot be shown exactly as it would be sent."),
    ALREADY_DECIDED(ReasonCode.APPROVAL_REUSED, "A decision on this exact action was already published."),
    FORM_TAMPERED(null, "The form's anti-forgery token is missing or wrong. Nothing was published."),
    ORIGIN_REFUSED(null, "The request did not come from this site. Nothing was published."),
    SESSION_INVALID(null, "Your session ended. Sign in again; nothing was published."),
    CHALLENGE_UNKNOWN(ReasonCode.APPROVAL_REUSED, "This review form was already used or was not issued to this "
            + "session. Nothing was published; open the review again."),
    CHALLENGE_EXPIRED(ReasonCode.APPROVAL_EXPIRED, "This review form expired. Nothing was published; open the "
            + "review again."),
    TOO_MANY_OPEN_FORMS(null, "This session has too many review forms open. Use one of them, or wait a few "
            + "minutes for them to expire. Nothing was published."),
    CHALLENGE_MISMATCH(ReasonCode.APPROVAL_DIGEST_MISMATCH, "This review form was issued for another action or "
            + "another version of it. Nothing was published."),
    STEP_UP_REQUIRED(null, "Approving needs a step-up: your passkey, or a one-time code from your authenticator "
            + "app. Nothing was published."),
    STEP_UP_FAILED(null, "The step-up verification failed. Nothing was published."),
    STEP_UP_LOCKED(null, "Too many failed step-ups: step-up is locked for this person for a while. Nothing was "
            + "published."),
    STEP_UP_NOT_FRESH(null, "The identity provider did not authenticate you again just now (its auth_time is too "
            + "old or missing). Nothing was published."),
    STEP_UP_TOO_WEAK(null, "The identity provider's authentication was not of the required strength (acr or amr). "
            + "Nothing was published."),
    BAD_DECISION(null, "That is not a decision this page offers. Nothing was published."),
    PUBLISH_FAILED(null, "The decision could not be confirmed as published. Check the queue before trying again.");

    private static final class Texts {
        static final String UNKNOWN_ACTION = "The approval service has not seen both the proposal and the gate's "
                + "receipt for this action. If it was just proposed, reload in a moment.";
    }

    private final ReasonCode reasonCode;
    private final String message;

    Refusal(ReasonCode reasonCode, String message) {
        this.reasonCode = reasonCode;
        this.message = message;
    }

    /** The contract reason code for the same fault, or null when the fault is the channel's own. */
    public ReasonCode reasonCode() {
        return reasonCode;
    }

    /** The name the page shows: another org's action is shown as an unknown one. */
    public String shownName() {
        return this == OTHER_ORG ? UNKNOWN_ACTION.name() : name();
    }

    public String message() {
        return message;
    }
}
