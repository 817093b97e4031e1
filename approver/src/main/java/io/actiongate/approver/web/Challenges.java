package io.actiongate.approver.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.approver.review.Refusal;
import io.actiongate.approver.state.SharedState;

/**
 * Single-use review challenges, in the {@link SharedState} every replica reads. A review page gets a 256-bit
 * challenge bound to the session, the subject, the action key and the {@code action_digest} shown, expiring after a
 * short time. The same bytes are the WebAuthn challenge of the step-up, so the authenticator signs this one review,
 * and the decision id is derived from it, so the gate's deployment-wide single use of decision ids backs this one.
 * {@link #consume} claims the challenge before anything else happens, on whichever replica the form arrives: a
 * replayed form, a double click or a second tab posting the same form, to this replica or another, finds it used.
 *
 * <p>A session holds at most one open challenge per action: reloading a review page (or opening it in a second tab)
 * shows the open one again, on any replica, and a new one is made only once it was posted (used or burnt) or has
 * expired. So the bound on open challenges per session counts the actions under review, not page loads.
 */
public final class Challenges {

    /** What a challenge was issued for. */
    public record Challenge(String id, String sessionId, String subject, String actionKey, String actionDigest,
                            Instant expiresAt) {
    }

    /** The outcome of consuming: the challenge, or why not. */
    public record Consumed(Challenge challenge, Refusal refusal) {
        public boolean ok() {
            return refusal == null;
        }
    }

    /** As stored (JSON without a time module: epoch milliseconds). */
    record Stored(String id, String sessionId, String subject, String actionKey, String actionDigest,
                  long expiresAtMillis) {
        static Stored of(Challenge c) {
            return new Stored(c.id(), c.sessionId(), c.subject(), c.actionKey(), c.actionDigest(),
                    c.expiresAt().toEpochMilli());
        }

        Challenge challenge() {
            return new Challenge(id, sessionId, subject, actionKey, actionDigest, Instant.ofEpochMilli(expiresAtMillis));
        }
    }

    private static final String ISSUED = "challenge/";
    private static final String USED = "challenge-used/";
    private static final String QUOTA = "challenge-quota/";
    /** The open challenge of one (session, action): its id, under a digest of both (no session id in a key). */
    private static final String OPEN = "challenge-open/";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SharedState state;
    private final Duration ttl;
    private final Clock clock;

    public Challenges(SharedState state, Duration ttl, Clock clock) {
        this.state = state;
        this.ttl = ttl;
        this.clock = clock;
    }

    /**
     * Open (unexpired, unused) challenges per session, one per action under review: each is a record in the shared
     * state until it expires, so one session cannot grow the state topic (and every replica's memory) without end. A
     * challenge posted (used or burnt) frees its place at once: a reviewer deciding one action after the other is
     * never refused, and one reloading a page reuses its place.
     */
    public static final int MAX_OPEN_PER_SESSION = 32;
    private static final int QUOTA_ATTEMPTS = 8;

    /**
     * The open challenge of this session for this action (shown again on a reload, on any replica), or a fresh one
     * when there is none, it was posted or it expired; null when the session has {@link #MAX_OPEN_PER_SESSION}
     * other actions open already (they free up as they are posted or expire).
     */
    public Challenge issue(String sessionId, String subject, String actionKey, String actionDigest) {
        Instant now = clock.instant();
        String openKey = OPEN + openId(sessionId, actionKey);
        Optional<SharedState.Versioned> open = state.get(openKey);
        Challenge current = open.map(v -> stored(new String(v.value(), StandardCharsets.UTF_8))).orElse(null);
        if (reusable(current, sessionId, subject, actionKey, actionDigest, now)) {
            return current;
        }
        if (current != null && state.claim(USED + current.id())) {
            // replaced (another digest shown, another subject): the old form can no longer be posted
            release(current.sessionId(), current.expiresAt());
        }
        Challenge c = new Challenge(Tokens.random(), sessionId, subject, actionKey, actionDigest, now.plus(ttl));
        if (!reserve(sessionId, now, c.expiresAt())) {
            return null;
        }
        try {
            state.compareAndSet(ISSUED + c.id(), 0, JSON.writeValueAsBytes(Stored.of(c)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (state.compareAndSet(openKey, open.map(SharedState.Versioned::version).orElse(0L),
                c.id().getBytes(StandardCharsets.UTF_8))) {
            return c;
        }
        // another page load of the same session and action (on any replica) put its own first: show that one
        Challenge winner = state.get(openKey).map(v -> stored(new String(v.value(), StandardCharsets.UTF_8)))
                .orElse(null);
        if (reusable(winner, sessionId, subject, actionKey, actionDigest, now) && state.claim(USED + c.id())) {
            release(sessionId, c.expiresAt());
            return winner;
        }
        return c;
    }

    /** Whether {@code c} is this session's unexpired, unused challenge for this action and digest. */
    private boolean reusable(Challenge c, String sessionId, String subject, String actionKey, String actionDigest,
                             Instant now) {
        return c != null && Tokens.same(c.sessionId(), sessionId) && c.subject().equals(subject)
                && c.actionKey().equals(actionKey) && c.actionDigest().equals(actionDigest)
                && now.isBefore(c.expiresAt()) && !state.claimed(USED + c.id());
    }

    /** The challenge stored under {@code id}, or null. */
    private Challenge stored(String id) {
        return state.get(ISSUED + id).map(v -> {
            try {
                return JSON.readValue(v.value(), Stored.class).challenge();
            } catch (IOException e) {
                return null;
            }
        }).orElse(null);
    }

    /** SHA-256 of the session id and the action key, hex: the open record's key names neither. */
    private static String openId(String sessionId, String actionKey) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest((sessionId + "\n" + actionKey).getBytes(StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(d);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Counts one more open form for the session in its quota record (expiry times), if there is room. */
    private boolean reserve(String sessionId, Instant now, Instant expiresAt) {
        return updateQuota(sessionId, now, open -> {
            if (open.size() >= MAX_OPEN_PER_SESSION) {
                return false;
            }
            return open.add(expiresAt.toEpochMilli());
        });
    }

    /** Takes one form expiring at {@code expiresAt} out of the session's quota record (it was used). */
    private void release(String sessionId, Instant expiresAt) {
        updateQuota(sessionId, clock.instant(), open -> open.remove(Long.valueOf(expiresAt.toEpochMilli())));
    }

    /**
     * Applies {@code change} to the session's unexpired open-form expiries and writes them back with a
     * compare-and-set, read again on a conflict, at most {@value #QUOTA_ATTEMPTS} times. {@code change} answers
     * false to leave the record as it is. True when written.
     */
    private boolean updateQuota(String sessionId, Instant now,
                                java.util.function.Predicate<java.util.List<Long>> change) {
        String key = QUOTA + sessionId;
        for (int i = 0; i < QUOTA_ATTEMPTS; i++) {
            java.util.Optional<io.actiongate.approver.state.SharedState.Versioned> cur = state.get(key);
            java.util.List<Long> open = new java.util.ArrayList<>(openExpiries(cur, now));
            if (!change.test(open)) {
                return false;
            }
            try {
                if (state.compareAndSet(key, cur.map(v -> v.version()).orElse(0L), JSON.writeValueAsBytes(open))) {
                    return true;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return false;
    }

    private static java.util.List<Long> openExpiries(
            java.util.Optional<io.actiongate.approver.state.SharedState.Versioned> v, Instant now) {
        if (v.isEmpty()) {
            return java.util.List.of();
        }
        try {
            long[] all = JSON.readValue(v.get().value(), long[].class);
            return java.util.Arrays.stream(all).filter(t -> t > now.toEpochMilli()).boxed().toList();
        } catch (IOException e) {
            return java.util.List.of();
        }
    }

    /**
     * Claims the challenge {@code id} and checks that it belongs to this session, subject and action and has not
     * expired. Whatever the result, the challenge can never be used again, on any replica.
     */
    public Consumed consume(String id, String sessionId, String subject, String actionKey) {
        if (id == null || id.isBlank() || id.length() > 64 || !state.claim(USED + id)) {
            return new Consumed(null, Refusal.CHALLENGE_UNKNOWN);
        }
        Challenge c = state.get(ISSUED + id).map(v -> {
            try {
                return JSON.readValue(v.value(), Stored.class).challenge();
            } catch (IOException e) {
                return null;
            }
        }).orElse(null);
        if (c == null) {
            return new Consumed(null, Refusal.CHALLENGE_UNKNOWN);
        }
        // spent now, whoever posted it: its place among its session's open forms is free again
        release(c.sessionId(), c.expiresAt());
        if (!Tokens.same(c.sessionId(), sessionId) || !c.subject().equals(subject)) {
            return new Consumed(c, Refusal.CHALLENGE_UNKNOWN);
        }
        if (!c.actionKey().equals(actionKey)) {
            return new Consumed(c, Refusal.CHALLENGE_MISMATCH);
        }
        if (!clock.instant().isBefore(c.expiresAt())) {
            return new Consumed(c, Refusal.CHALLENGE_EXPIRED);
        }
        return new Consumed(c, null);
    }

    /**
     * Checks the challenge like {@link #consume} without using it (a step-up through the identity provider consumes
     * it when the person comes back).
     */
    public Consumed peek(String id, String sessionId, String subject, String actionKey) {
        if (id == null || id.isBlank() || id.length() > 64 || state.claimed(USED + id)) {
            return new Consumed(null, Refusal.CHALLENGE_UNKNOWN);
        }
        Challenge c = state.get(ISSUED + id).map(v -> {
            try {
                return JSON.readValue(v.value(), Stored.class).challenge();
            } catch (IOException e) {
                return null;
            }
        }).orElse(null);
        if (c == null || !Tokens.same(c.sessionId(), sessionId) || !c.subject().equals(subject)) {
            return new Consumed(c, Refusal.CHALLENGE_UNKNOWN);
        }
        if (!c.actionKey().equals(actionKey)) {
            return new Consumed(c, Refusal.CHALLENGE_MISMATCH);
        }
        if (!clock.instant().isBefore(c.expiresAt())) {
            return new Consumed(c, Refusal.CHALLENGE_EXPIRED);
        }
        return new Consumed(c, null);
    }

    /**
     * Forgets challenges expired for longer than their lifetime (kept that long to say "expired", not "unknown"),
     * with their use marks. A used mark outlives its challenge only until the next sweep.
     */
    public void sweep() {
        Instant now = clock.instant();
        for (String key : state.keys(ISSUED)) {
            Challenge c = state.get(key).map(v -> {
                try {
                    return JSON.readValue(v.value(), Stored.class).challenge();
                } catch (IOException e) {
                    return null;
                }
            }).orElse(null);
            if (c == null || now.isAfter(c.expiresAt().plus(ttl))) {
                state.forget(key);
                state.forget(USED + key.substring(ISSUED.length()));
            }
        }
        for (String open : state.keys(OPEN)) {
            Optional<SharedState.Versioned> v = state.get(open);
            Challenge c = v.map(x -> stored(new String(x.value(), StandardCharsets.UTF_8))).orElse(null);
            if (c == null || !now.isBefore(c.expiresAt())) {
                state.forget(open);
            }
        }
        for (String quota : state.keys(QUOTA)) {
            if (openExpiries(state.get(quota), now).isEmpty()) {
                state.forget(quota);
            }
        }
        for (String used : state.keys(USED)) {
            if (state.get(ISSUED + used.substring(USED.length())).isEmpty()) {
                state.forget(used);
            }
        }
    }

    public int size() {
        return state.keys(ISSUED).size();
    }
}
