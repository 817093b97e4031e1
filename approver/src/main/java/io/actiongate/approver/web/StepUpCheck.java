package io.actiongate.approver.web;

import java.io.IOException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.stepup.StepUpException;
import io.actiongate.approver.stepup.StepUpStore;

/**
 * Verifies the step-up a form carries (a passkey assertion over a single-use challenge, or a one-time code) against
 * the factors the signed-in person has enrolled. Used by every decision and by adding or replacing a factor, so that
 * both ask exactly the same proof. Failures count towards the person's step-up lock.
 */
final class StepUpCheck {

    private static final Logger LOG = LoggerFactory.getLogger(StepUpCheck.class);

    /** The outcome: verified (with the auth method), none offered, failed, or locked. */
    record Result(String method, Outcome outcome) {
        boolean ok() {
            return outcome == Outcome.VERIFIED;
        }
    }

    enum Outcome { VERIFIED, NONE_OFFERED, FAILED, LOCKED }

    private final ApprovalApp.Deps d;

    StepUpCheck(ApprovalApp.Deps d) {
        this.d = d;
    }

    /** Checks the form's step-up over {@code challengeId} (base64url, the bytes a passkey must have signed). */
    Result verify(Exchange ex, Session s, String challengeId) throws IOException {
        String org = s.identity().org();
        String subject = s.identity().subject();
        if (d.stepUps().locked(org, subject, d.clock().instant())) {
            return new Result(null, Outcome.LOCKED);
        }
        String method = offered(ex, s, challengeId);
        if (method == null) {
            return new Result(null, Outcome.NONE_OFFERED);
        }
        if (method.startsWith("!")) {
            d.stepUps().recordFailure(org, subject, d.clock().instant());
            return new Result(null, Outcome.FAILED);
        }
        return new Result(method, Outcome.VERIFIED);
    }

    private String offered(Exchange ex, Session s, String challengeId) throws IOException {
        String org = s.identity().org();
        String subject = s.identity().subject();
        String credentialId = ex.field("webauthn_id");
        if (credentialId != null && !credentialId.isBlank()) {
            StepUpStore.Passkey pk = d.stepUps().passkey(org, subject, credentialId).orElse(null);
            byte[] challengeBytes = challengeId == null ? null : Tokens.unb64(challengeId);
            byte[] id = Tokens.unb64(credentialId);
            byte[] clientData = Tokens.unb64(ex.field("webauthn_client_data"));
            byte[] authData = Tokens.unb64(ex.field("webauthn_authenticator_data"));
            byte[] signature = Tokens.unb64(ex.field("webauthn_signature"));
            String uh = ex.field("webauthn_user_handle");
            byte[] userHandle = uh == null || uh.isBlank() ? null : Tokens.unb64(uh);
            if (pk == null || challengeBytes == null || id == null || clientData == null || authData == null
                    || signature == null) {
                return "!passkey";
            }
            try {
                long counter = d.passkeys().verify(pk.record(), challengeBytes, id, userHandle, authData, clientData,
                        signature);
                d.stepUps().passkeyUsed(org, subject, credentialId, counter);
                return "oidc+webauthn";
            } catch (StepUpException e) {
                LOG.info("step-up failed for subject {}: {}", PageKit.safe(subject), e.getMessage());
                return "!passkey";
            }
        }
        String totp = ex.field("totp");
        if (totp != null && !totp.isBlank()) {
            return d.stepUps().useTotp(org, subject, totp, d.clock().instant()) ? "oidc+totp" : "!totp";
        }
        return null;
    }
}
