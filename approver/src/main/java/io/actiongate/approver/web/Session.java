package io.actiongate.approver.web;

import java.time.Instant;

import io.actiongate.approver.review.Identity;

/**
 * A signed-in person's session. It lives in the browser, sealed (AES-GCM, {@link Sealer}) in an HttpOnly, Secure,
 * SameSite=Strict cookie that only the service can open, so every replica serves it and none keeps it; ending it
 * (sign-out) is a mark in the shared state until it would have expired anyway. The identity comes from the verified
 * ID token; the anti-forgery token is per session and goes into every form.
 */
public final class Session {

    /** What the cookie carries. */
    record Data(String id, String subject, String org, String email, String name, String csrf, long createdAt,
                long lastSeen, Long factorConfirmedAt, String registrationChallenge, String registrationHandle,
                String enrolChallenge, String pendingTotpSecret) {
    }

    private final String id;
    private final Identity identity;
    private final String csrf;
    private final Instant createdAt;
    private volatile Instant lastSeen;
    private volatile Instant factorConfirmedAt;
    private volatile String registrationChallenge;
    private volatile String registrationHandle;
    private volatile String enrolChallenge;
    private volatile byte[] pendingTotpSecret;

    Session(String id, Identity identity, Instant now) {
        this(id, identity, Tokens.random(), now, now);
    }

    private Session(String id, Identity identity, String csrf, Instant createdAt, Instant lastSeen) {
        this.id = id;
        this.identity = identity;
        this.csrf = csrf;
        this.createdAt = createdAt;
        this.lastSeen = lastSeen;
    }

    /** The session named by a step-up's sealed cookie, for one answer (it is not sealed again). */
    static Session transientFor(String id, Identity identity, Instant now) {
        return new Session(id, identity, null, now, now);
    }

    static Session of(Data d) {
        Session s = new Session(d.id(), new Identity(d.subject(), d.org(), d.email(), d.name()), d.csrf(),
                Instant.ofEpochMilli(d.createdAt()), Instant.ofEpochMilli(d.lastSeen()));
        s.factorConfirmedAt = d.factorConfirmedAt() == null ? null : Instant.ofEpochMilli(d.factorConfirmedAt());
        s.registrationChallenge = d.registrationChallenge();
        s.registrationHandle = d.registrationHandle();
        s.enrolChallenge = d.enrolChallenge();
        s.pendingTotpSecret = d.pendingTotpSecret() == null ? null : Tokens.unb64(d.pendingTotpSecret());
        return s;
    }

    Data data() {
        Identity i = identity;
        byte[] totp = pendingTotpSecret;
        return new Data(id, i.subject(), i.org(), i.email(), i.name(), csrf, createdAt.toEpochMilli(),
                lastSeen.toEpochMilli(), factorConfirmedAt == null ? null : factorConfirmedAt.toEpochMilli(),
                registrationChallenge, registrationHandle, enrolChallenge, totp == null ? null : Tokens.b64(totp));
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

    String registrationHandle() {
        return registrationHandle;
    }

    void registrationHandle(String h) {
        registrationHandle = h;
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
