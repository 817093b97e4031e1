package io.actiongate.gate.internal;

import java.util.Optional;

import io.actiongate.avro.Decision;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.gate.VerifyingKey;
import io.actiongate.policy.ApproverPolicy;
import io.actiongate.policy.Rejection;

/**
 * Verifies a decision against the action it names: a trusted key and a valid Ed25519 signature, single use,
 * bound to the frozen action's digest, an authorized approver of the action's org, not expired. Nothing in the
 * decision is trusted before its signature verifies.
 */
public final class DecisionVerifier {

    private final TrustedKeys keys;
    private final ApproverPolicy approvers;

    public DecisionVerifier(TrustedKeys keys, ApproverPolicy approvers) {
        this.keys = keys;
        this.approvers = approvers;
    }

    /** Empty when {@code d} may be applied to {@code action} at {@code now}. */
    public Optional<Rejection> verify(Decision d, ActionState action, boolean alreadyUsed, long now) {
        return verifySignature(d).or(() -> verifyAgainst(d, action, alreadyUsed, now));
    }

    /**
     * Everything but the signature (which the caller verified already): single use, bound to {@code action}'s
     * digest, an authorized approver of its org, not expired at {@code now}.
     */
    public Optional<Rejection> verifyAgainst(Decision d, ActionState action, boolean alreadyUsed, long now) {
        if (alreadyUsed) {
            return reject(ReasonCode.APPROVAL_REUSED, "decision_id was already used");
        }
        if (action.actionDigest() == null || !action.actionDigest().equals(d.getActionDigest())) {
            return reject(ReasonCode.APPROVAL_DIGEST_MISMATCH, "action_digest is not the frozen action's digest");
        }
        if (!approvers.mayDecide(d.getApproverOrg(), d.getApproverSubject(), action.action().orgId())) {
            return reject(ReasonCode.APPROVER_NOT_AUTHORIZED, "approver may not decide for this org");
        }
        if (d.getExpiresAt().toEpochMilli() <= now) {
            return reject(ReasonCode.APPROVAL_EXPIRED, "decision expired before it was processed");
        }
        return Optional.empty();
    }

    /**
     * Empty when {@code d} carries a valid Ed25519 signature under a trusted key: over
     * {@link DecisionSigning#signedPayload}, checked by the key's {@link VerifyingKey}.
     */
    public Optional<Rejection> verifySignature(Decision d) {
        Optional<VerifyingKey> key = keys.verifier(d.getKeyId());
        if (key.isEmpty()) {
            return reject(ReasonCode.APPROVAL_SIGNATURE_INVALID, "key_id is not a trusted key");
        }
        if (!key.get().verify(payload(d), d.getSignature())) {
            return reject(ReasonCode.APPROVAL_SIGNATURE_INVALID, "signature does not verify under key "
                    + d.getKeyId());
        }
        return Optional.empty();
    }

    /** The signed bytes, or none (which verifies nothing) when the decision cannot be canonicalized. */
    private static byte[] payload(Decision d) {
        try {
            return DecisionSigning.signedPayload(d);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Optional<Rejection> reject(ReasonCode code, String reason) {
        return Optional.of(new Rejection(code, reason));
    }
}
