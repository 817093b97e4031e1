package io.actiongate.approver.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.webauthn4j.credential.CredentialRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.review.Refusal;
import io.actiongate.approver.stepup.StepUpException;
import io.actiongate.approver.stepup.StepUpStore;
import io.actiongate.approver.stepup.Totp;

/**
 * {@code /stepup}: registering a passkey (WebAuthn, user verification required) or a TOTP app. Only a sign-in younger
 * than the enrolment window may add a factor, so a stale or stolen session cannot enrol one of its own.
 */
final class StepUpEnrolment {

    private static final Logger LOG = LoggerFactory.getLogger(StepUpEnrolment.class);

    private final ApprovalApp.Deps d;
    private final PageKit kit;

    StepUpEnrolment(ApprovalApp.Deps d, PageKit kit) {
        this.d = d;
        this.kit = kit;
    }

    boolean mayEnrol(Session s) {
        return !d.clock().instant().isAfter(s.createdAt().plus(d.enrolWindow()));
    }

    void page(Exchange ex, Session s, String problem, String notice, boolean pendingTotp)
            throws IOException {
        String org = s.identity().org();
        String subject = s.identity().subject();
        Map<String, Object> m = kit.base(s, "Step-up factors");
        m.put("problem", problem);
        m.put("notice", notice);
        m.put("passkeyCount", d.stepUps().passkeys(org, subject).size());
        m.put("hasTotp", d.stepUps().hasTotp(org, subject));
        m.put("mayEnrol", mayEnrol(s));
        m.put("enrolWindow", d.enrolWindow().toMinutes() + " min");
        if (mayEnrol(s)) {
            String challenge = Tokens.random();
            s.registrationChallenge(challenge);
            m.put("registrationChallenge", challenge);
            m.put("rpId", d.rpId());
            m.put("userHandle", Tokens.b64(d.stepUps().userHandle(org, subject)));
        }
        byte[] secret = s.pendingTotpSecret();
        if (pendingTotp && secret != null) {
            String b32 = Totp.base32(secret);
            m.put("pendingTotp", Map.of("secret", b32, "uri", "otpauth://totp/actiongate:"
                    + java.net.URLEncoder.encode(s.identity().display(), StandardCharsets.UTF_8).replace("+", "%20")
                    + "?secret=" + b32 + "&issuer=actiongate&digits=6&period=30&algorithm=SHA1"));
        }
        ex.html(problem == null ? 200 : 400, kit.pages.render("stepup", m));
    }

    void registerPasskey(Exchange ex, Session s) throws IOException {
        if (!mayEnrol(s)) {
            PageKit.audit(Refusal.STEP_UP_FAILED, ex, s, "enrol", null);
            page(ex, s, "Adding a passkey needs a fresh sign-in.", null, false);
            return;
        }
        String challenge = s.registrationChallenge();
        s.registrationChallenge(null);
        byte[] attestation = Tokens.unb64(ex.field("attestation_object"));
        byte[] clientData = Tokens.unb64(ex.field("client_data"));
        if (challenge == null || attestation == null || clientData == null || attestation.length == 0) {
            LOG.info("passkey registration without data: challenge {}, attestation {}, client data {}",
                    challenge != null, attestation == null ? -1 : attestation.length,
                    clientData == null ? -1 : clientData.length);
            page(ex, s, "No passkey was received (this needs JavaScript).", null, false);
            return;
        }
        try {
            CredentialRecord record = d.passkeys().register(Tokens.unb64(challenge), attestation, clientData);
            String id = Tokens.b64(record.getAttestedCredentialData().getCredentialId());
            d.stepUps().addPasskey(s.identity().org(), s.identity().subject(),
                    new StepUpStore.Passkey(id, record, d.clock().instant()));
            PageKit.AUDIT.info("registered passkey subject={} org={} remote={}", PageKit.safe(s.identity().subject()),
                    PageKit.safe(s.identity().org()), ex.remote());
            page(ex, s, null, "Passkey registered.", false);
        } catch (StepUpException e) {
            PageKit.audit(Refusal.STEP_UP_FAILED, ex, s, "enrol", null);
            page(ex, s, "The passkey was not registered: " + e.getMessage(), null, false);
        }
    }

    void beginTotp(Exchange ex, Session s) throws IOException {
        if (!mayEnrol(s)) {
            page(ex, s, "Setting up a one-time code app needs a fresh sign-in.", null, false);
            return;
        }
        s.pendingTotpSecret(Tokens.randomBytes(20));
        page(ex, s, null, null, true);
    }

    void confirmTotp(Exchange ex, Session s) throws IOException {
        byte[] secret = s.pendingTotpSecret();
        if (secret == null || !mayEnrol(s)) {
            page(ex, s, "Start the set-up again.", null, false);
            return;
        }
        long step = Totp.verify(secret, ex.field("totp"), d.clock().instant());
        if (step < 0) {
            PageKit.audit(Refusal.STEP_UP_FAILED, ex, s, "enrol", null);
            page(ex, s, "That code does not match; try the next one.", null, true);
            return;
        }
        s.pendingTotpSecret(null);
        d.stepUps().setTotp(s.identity().org(), s.identity().subject(), secret, step);
        PageKit.AUDIT.info("registered totp subject={} org={} remote={}", PageKit.safe(s.identity().subject()),
                PageKit.safe(s.identity().org()), ex.remote());
        page(ex, s, null, "One-time code app set up.", false);
    }
}
