package io.actiongate.approver.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

import io.actiongate.approver.review.Refusal;

/**
 * Single-use review challenges. Each review page gets a fresh 256-bit challenge bound to the session, the subject,
 * the action key and the {@code action_digest} shown, expiring after a short time. The same bytes are the WebAuthn
 * challenge of the step-up, so the authenticator signs this one review. {@link #consume} removes the challenge
 * atomically before anything else happens: a replayed form, a double click or a second tab posting the same form finds
 * nothing.
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

    private final ConcurrentHashMap<String, Challenge> challenges = new ConcurrentHashMap<>();
    private final Duration ttl;
    private final Clock clock;

    public Challenges(Duration ttl, Clock clock) {
        this.ttl = ttl;
        this.clock = clock;
    }

    public Challenge issue(String sessionId, String subject, String actionKey, String actionDigest) {
        sweep();
        Challenge c = new Challenge(Tokens.random(), sessionId, subject, actionKey, actionDigest,
                clock.instant().plus(ttl));
        challenges.put(c.id(), c);
        return c;
    }

    /**
     * Removes the challenge {@code id} and checks that it belongs to this session, subject and action and has not
     * expired. Whatever the result, the challenge can never be used again.
     */
    public Consumed consume(String id, String sessionId, String subject, String actionKey) {
        Challenge c = id == null ? null : challenges.remove(id);
        if (c == null) {
            return new Consumed(null, Refusal.CHALLENGE_UNKNOWN);
        }
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

    /** Forgets challenges expired for longer than their lifetime (kept that long to say "expired", not "unknown"). */
    public void sweep() {
        Instant now = clock.instant();
        challenges.values().removeIf(c -> now.isAfter(c.expiresAt().plus(ttl)));
    }

    public int size() {
        return challenges.size();
    }
}
