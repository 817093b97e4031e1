package io.actiongate.approver.web;

import java.time.Instant;

import io.actiongate.approver.review.Identity;

/**
 * A signed-in person's server-side session. The browser holds only the random id in an HttpOnly, Secure,
 * SameSite=Strict cookie; the identity comes from the verified ID token; the anti-forgery token is per session and
 * goes into every form.
 */
public final class Session {

    private final String id;
    private final Identity identity;
    private final String csrf;
    private final Instant createdAt;
    private volatile Instant lastSeen;
    /** A pending passkey registration challenge (base64url), or null. */
    private volatile String registrationChallenge;
    /** The single-use challenge a passkey signs to confirm an existing factor before enrolment, or null. */
    private volatile String enrolChallenge;
    /** When this session last proved an existing factor to add or replace one, or null. */
    private volatile Instant factorConfirmedAt;
    /** A TOTP secret waiting for its first code, or null. */
    private volatile byte[] pendingTotpSecret;

    Session(String id, Identity identity, Instant now) {
        this.id = id;
        this.identity = identity;
        this.csrf = Tokens.random();
        this.createdAt = now;
        this.lastSeen = now;
    }

    public String id() {
        return id;
    }

    public Identity identity() {
        return identity;
    }

    public String csrf() {
        return csrf;
    }

    public Instant createdAt() {
        return createdAt;
    }

    Instant lastSeen() {
        return lastSeen;
    }

    void touch(Instant now) {
        lastSeen = now;
    }

    public String registrationChallenge() {
        return registrationChallenge;
    }

    public void registrationChallenge(String c) {
        registrationChallenge = c;
    }

    /** Takes the pending enrolment challenge: it answers one confirmation at most. */
    String takeEnrolChallenge() {
        String c = enrolChallenge;
        enrolChallenge = null;
        return c;
    }

    void enrolChallenge(String c) {
        enrolChallenge = c;
    }

    Instant factorConfirmedAt() {
        return factorConfirmedAt;
    }

    void factorConfirmedAt(Instant at) {
        factorConfirmedAt = at;
    }

    public byte[] pendingTotpSecret() {
        return pendingTotpSecret == null ? null : pendingTotpSecret.clone();
    }

    public void pendingTotpSecret(byte[] s) {
        pendingTotpSecret = s == null ? null : s.clone();
    }
}
