package io.actiongate.approver.web;

import java.time.Instant;
import java.util.Optional;

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
                long lastSeen) {
    }

    private final String id;
    private final Identity identity;
    private final String csrf;
    private final Instant createdAt;
    private volatile Instant lastSeen;
    private volatile boolean touched;
    /** Where this session's changing values live (null for a transient session: they are not kept). */
    private volatile SessionScratch scratch;
    private volatile long endsAtMillis;

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
        return new Session(d.id(), new Identity(d.subject(), d.org(), d.email(), d.name()), d.csrf(),
                Instant.ofEpochMilli(d.createdAt()), Instant.ofEpochMilli(d.lastSeen()));
    }

    Data data() {
        Identity i = identity;
        return new Data(id, i.subject(), i.org(), i.email(), i.name(), csrf, createdAt.toEpochMilli(),
                lastSeen.toEpochMilli());
    }

    Session attach(SessionScratch s, Instant endsAt) {
        this.scratch = s;
        this.endsAtMillis = endsAt.toEpochMilli();
        return this;
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

    /** Records this request; whether the cookie needs sealing again (at most once a minute, to extend idle). */
    void touch(Instant now) {
        if (now.isAfter(lastSeen.plusSeconds(60))) {
            lastSeen = now;
            touched = true;
        }
    }

    boolean touched() {
        return touched;
    }

    private Optional<String> get(String name) {
        SessionScratch s = scratch;
        return s == null ? Optional.empty() : s.get(id, name);
    }

    private void put(String name, String value) {
        SessionScratch s = scratch;
        if (s != null) {
            if (value == null) {
                s.remove(id, name);
            } else {
                s.put(id, name, value, endsAtMillis);
            }
        }
    }

    public String registrationChallenge() {
        return get("registration-challenge").orElse(null);
    }

    public void registrationChallenge(String c) {
        put("registration-challenge", c);
    }

    String registrationHandle() {
        return get("registration-handle").orElse(null);
    }

    void registrationHandle(String h) {
        put("registration-handle", h);
    }

    /** Takes the pending enrolment challenge: it answers one confirmation at most. */
    String takeEnrolChallenge() {
        String c = get("enrol-challenge").orElse(null);
        if (c != null) {
            put("enrol-challenge", null);
        }
        return c;
    }

    void enrolChallenge(String c) {
        put("enrol-challenge", c);
    }

    Instant factorConfirmedAt() {
        return get("factor-confirmed-at").map(v -> Instant.ofEpochMilli(Long.parseLong(v))).orElse(null);
    }

    void factorConfirmedAt(Instant at) {
        put("factor-confirmed-at", at == null ? null : Long.toString(at.toEpochMilli()));
    }

    public byte[] pendingTotpSecret() {
        SessionScratch s = scratch;
        return s == null ? null : s.getSecret(id, "pending-totp").orElse(null);
    }

    public void pendingTotpSecret(byte[] secret) {
        SessionScratch s = scratch;
        if (s == null) {
            return;
        }
        if (secret == null) {
            s.remove(id, "pending-totp");
        } else {
            s.putSecret(id, "pending-totp", secret, endsAtMillis);
        }
    }
}
