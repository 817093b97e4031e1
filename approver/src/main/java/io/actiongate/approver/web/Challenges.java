package io.actiongate.approver.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.approver.review.Refusal;
import io.actiongate.approver.state.SharedState;

/**
 * Single-use review challenges, in the {@link SharedState} every replica reads. Each review page gets a fresh
 * 256-bit challenge bound to the session, the subject, the action key and the {@code action_digest} shown, expiring
 * after a short time. The same bytes are the WebAuthn challenge of the step-up, so the authenticator signs this one
 * review, and the decision id is derived from it, so the gate's deployment-wide single use of decision ids backs
 * this one. {@link #consume} claims the challenge before anything else happens, on whichever replica the form
 * arrives: a replayed form, a double click or a second tab posting the same form, to this replica or another,
 * finds it used.
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
     * Open (unexpired, unused) review forms per session: each is a record in the shared state until it expires, so
     * one session reloading review pages cannot grow the state topic (and every replica's memory) without end. A
     * form posted (used or burnt) frees its place at once: a reviewer deciding one action after the other is never
     * refused.
     */
    public static final int MAX_OPEN_PER_SESSION = 32;
    private static final int QUOTA_ATTEMPTS = 8;

    /**
     * A fresh challenge for this review, or null when the session has {@link #MAX_OPEN_PER_SESSION} open ones
     * already (on any replica); they free up as they expire.
     */
    public Challenge issue(String sessionId, String subject, String actionKey, String actionDigest) {
        Instant now = clock.instant();
        Challenge c = new Challenge(Tokens.random(), sessionId, subject, actionKey, actionDigest, now.plus(ttl));
        if (!reserve(sessionId, now, c.expiresAt())) {
            return null;
        }
        try {
            state.compareAndSet(ISSUED + c.id(), 0, JSON.writeValueAsBytes(Stored.of(c)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return c;
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
        if (id == null || id.isBlank() || id.length() > 64 || state.get(USED + id).isPresent()) {
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
