package io.actiongate.approver.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;

import com.webauthn4j.credential.CredentialRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.review.Refusal;
import io.actiongate.approver.stepup.StepUpException;
import io.actiongate.approver.stepup.StepUpStore;
import io.actiongate.approver.stepup.Totp;

/**
 * {@code /stepup}: registering a passkey (WebAuthn, user verification required) or a TOTP app. The factor lifecycle:
 * <ul>
 * <li>the first factor needs a sign-in younger than the enrolment window, so a stale or stolen session cannot enrol
 * one of its own;</li>
 * <li>once a person has a factor, adding another or replacing the TOTP app needs a step-up with an existing factor
 * (within the enrolment window before), so a fresh identity-provider sign-in alone never changes the step-up: the
 * step-up stays something the sign-in does not give;</li>
 * <li>a person who lost every factor asks an operator for {@code actiongate approver reset-factors}, then signs in
 * fresh and enrols again.</li>
 * </ul>
 * Every enrolment and every refused one is an audit record.
 */
final class StepUpEnrolment {

    private static final Logger LOG = LoggerFactory.getLogger(StepUpEnrolment.class);

    private final ApprovalApp.Deps d;
    private final PageKit kit;
    private final StepUpCheck check;

    StepUpEnrolment(ApprovalApp.Deps d, PageKit kit, StepUpCheck check) {
        this.d = d;
        this.kit = kit;
        this.check = check;
    }

    private boolean hasFactor(Session s) {
        return d.stepUps().hasAny(s.identity().org(), s.identity().subject());
    }

    /** Whether this session may add a factor now (the lifecycle in the class comment). */
    boolean mayEnrol(Session s) {
        return !hasFactor(s) ? freshSignIn(s) : confirmedRecently(s);
    }

    private boolean freshSignIn(Session s) {
        return !d.clock().instant().isAfter(s.createdAt().plus(d.enrolWindow()));
    }

    private boolean confirmedRecently(Session s) {
        Instant confirmed = s.factorConfirmedAt();
        return confirmed != null && !d.clock().instant().isAfter(confirmed.plus(d.enrolWindow()));
    }

    /**
     * Whether the write must land only while the person still has no factor: true unless this session proved an
     * existing factor. Checked again inside the shared write, so two first enrolments at once cannot both pass.
     */
    private boolean onlyAsFirst(Session s) {
        return !confirmedRecently(s);
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
        boolean may = mayEnrol(s);
        boolean hasFactor = hasFactor(s);
        m.put("mayEnrol", may);
        m.put("needsFresh", !may && !hasFactor);
        m.put("enrolWindow", d.enrolWindow().toMinutes() + " min");
        if (may) {
            String challenge = Tokens.random();
            s.registrationChallenge(challenge);
            m.put("registrationChallenge", challenge);
            m.put("rpId", d.rpId());
            String handle = d.stepUps().userHandle(org, subject).map(Tokens::b64)
                    .orElseGet(() -> Tokens.b64(Tokens.randomBytes(16)));
            s.registrationHandle(handle);
            m.put("userHandle", handle);
        } else if (hasFactor) {
            String challenge = Tokens.random();
            s.enrolChallenge(challenge);
            m.put("confirm", Map.of("challenge", challenge, "rpId", d.rpId(),
                    "credentials", d.stepUps().passkeys(org, subject).stream().map(StepUpStore.Passkey::id)
                            .collect(Collectors.joining(",")),
                    "hasTotp", d.stepUps().hasTotp(org, subject)));
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

    /** {@code POST /stepup/confirm}: proves an existing factor, which opens adding or replacing one for a while. */
    void confirmExisting(Exchange ex, Session s) throws IOException {
        String challenge = s.takeEnrolChallenge();
        if (!hasFactor(s)) {
            page(ex, s, null, null, false);
            return;
        }
        StepUpCheck.Result r = check.verify(ex, s, challenge);
        if (!r.ok()) {
            Refusal refusal = switch (r.outcome()) {
                case LOCKED -> Refusal.STEP_UP_LOCKED;
                case NONE_OFFERED -> Refusal.STEP_UP_REQUIRED;
                default -> Refusal.STEP_UP_FAILED;
            };
            PageKit.audit(refusal, ex, s, "enrol", null);
            page(ex, s, "Confirming with your existing factor failed. " + refusal.message(), null, false);
            return;
        }
        s.factorConfirmedAt(d.clock().instant());
        PageKit.AUDIT.info("confirmed existing factor for enrolment method={} subject={} org={} remote={}",
                r.method(), PageKit.safe(s.identity().subject()), PageKit.safe(s.identity().org()), ex.remote());
        page(ex, s, null, "Confirmed. You may add or replace a factor now.", false);
    }

    private void refuseEnrol(Exchange ex, Session s, String factor) throws IOException {
        PageKit.audit(Refusal.STEP_UP_REQUIRED, ex, s, "enrol-" + factor, null);
        page(ex, s, hasFactor(s)
                ? "Adding or replacing a factor needs a step-up with one you already have."
                : "Adding a factor needs a fresh sign-in.", null, false);
    }

    void registerPasskey(Exchange ex, Session s) throws IOException {
        if (!mayEnrol(s)) {
            refuseEnrol(ex, s, "passkey");
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
            boolean first = !hasFactor(s);
            String handle = s.registrationHandle();
            byte[] userHandle = handle == null ? Tokens.randomBytes(16) : Tokens.unb64(handle);
            if (!d.stepUps().addPasskey(s.identity().org(), s.identity().subject(),
                    new StepUpStore.Passkey(id, record, d.clock().instant()), userHandle, onlyAsFirst(s))) {
                refuseEnrol(ex, s, "passkey");
                return;
            }
            PageKit.AUDIT.info("enrolled factor=passkey first={} subject={} org={} remote={}", first,
                    PageKit.safe(s.identity().subject()), PageKit.safe(s.identity().org()), ex.remote());
            page(ex, s, null, "Passkey registered.", false);
        } catch (StepUpException e) {
            PageKit.audit(Refusal.STEP_UP_FAILED, ex, s, "enrol-passkey", null);
            page(ex, s, "The passkey was not registered: " + e.getMessage(), null, false);
        }
    }

    void beginTotp(Exchange ex, Session s) throws IOException {
        if (!mayEnrol(s)) {
            refuseEnrol(ex, s, "totp");
            return;
        }
        s.pendingTotpSecret(Tokens.randomBytes(20));
        page(ex, s, null, null, true);
    }

    void confirmTotp(Exchange ex, Session s) throws IOException {
        byte[] secret = s.pendingTotpSecret();
        if (secret == null) {
            page(ex, s, "Start the set-up again.", null, false);
            return;
        }
        if (!mayEnrol(s)) {
            s.pendingTotpSecret(null);
            refuseEnrol(ex, s, "totp");
            return;
        }
        long step = Totp.verify(secret, ex.field("totp"), d.clock().instant());
        if (step < 0) {
            PageKit.audit(Refusal.STEP_UP_FAILED, ex, s, "enrol-totp", null);
            page(ex, s, "That code does not match; try the next one.", null, true);
            return;
        }
        s.pendingTotpSecret(null);
        boolean replaced = d.stepUps().hasTotp(s.identity().org(), s.identity().subject());
        boolean first = !hasFactor(s);
        if (!d.stepUps().setTotp(s.identity().org(), s.identity().subject(), secret, step, onlyAsFirst(s))) {
            refuseEnrol(ex, s, "totp");
            return;
        }
        PageKit.AUDIT.info("enrolled factor=totp first={} replaced={} subject={} org={} remote={}", first, replaced,
                PageKit.safe(s.identity().subject()), PageKit.safe(s.identity().org()), ex.remote());
        page(ex, s, null, "One-time code app set up.", false);
    }
}
