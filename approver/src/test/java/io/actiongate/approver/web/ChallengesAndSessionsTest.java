package io.actiongate.approver.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.actiongate.approver.review.Identity;
import io.actiongate.approver.review.Refusal;

class ChallengesAndSessionsTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T22:00:00Z"));
    private final Challenges challenges = new Challenges(Duration.ofMinutes(5), clock);

    @Test
    void shouldConsumeAChallengeOnlyOnce() {
        Challenges.Challenge c = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");

        Challenges.Consumed first = challenges.consume(c.id(), "s1", "alice", "T-1/c-1");
        Challenges.Consumed again = challenges.consume(c.id(), "s1", "alice", "T-1/c-1");

        assertThat(first.ok()).isTrue();
        assertThat(first.challenge().actionDigest()).isEqualTo("sha256:aa");
        assertThat(again.refusal()).isEqualTo(Refusal.CHALLENGE_UNKNOWN);
    }

    @Test
    void shouldBindTheChallengeToSessionSubjectAndAction() {
        Challenges.Challenge a = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        assertThat(challenges.consume(a.id(), "s2", "alice", "T-1/c-1").refusal()).isEqualTo(Refusal.CHALLENGE_UNKNOWN);
        assertThat(challenges.consume(a.id(), "s1", "alice", "T-1/c-1").ok()).as("burnt by the failed try").isFalse();

        Challenges.Challenge b = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        assertThat(challenges.consume(b.id(), "s1", "bob", "T-1/c-1").refusal()).isEqualTo(Refusal.CHALLENGE_UNKNOWN);

        Challenges.Challenge c = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        assertThat(challenges.consume(c.id(), "s1", "alice", "T-1/c-2").refusal())
                .isEqualTo(Refusal.CHALLENGE_MISMATCH);
        assertThat(challenges.consume(null, "s1", "alice", "T-1/c-1").refusal()).isEqualTo(Refusal.CHALLENGE_UNKNOWN);
    }

    @Test
    void shouldRefuseAnExpiredChallenge() {
        Challenges.Challenge c = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        clock.advance(Duration.ofMinutes(5));
        assertThat(challenges.consume(c.id(), "s1", "alice", "T-1/c-1").refusal())
                .isEqualTo(Refusal.CHALLENGE_EXPIRED);
    }

    @Test
    void shouldEndSessionsWhenIdleOrTooOld() {
        Sessions sessions = new Sessions(Duration.ofMinutes(15), Duration.ofHours(1), clock);
        Identity alice = new Identity("alice", "demo", null, null);
        Session idle = sessions.create(alice);
        Session busy = sessions.create(alice);

        for (int i = 0; i < 4; i++) {
            clock.advance(Duration.ofMinutes(14));
            assertThat(sessions.find(busy.id())).isPresent();
        }
        assertThat(sessions.find(idle.id())).as("idle for 56 min").isEmpty();
        clock.advance(Duration.ofMinutes(5));
        assertThat(sessions.find(busy.id())).as("older than the maximum").isEmpty();
        assertThat(sessions.find(null)).isEmpty();
        assertThat(sessions.find("forged")).isEmpty();
        assertThat(busy.csrf()).isNotEqualTo(idle.csrf()).hasSizeGreaterThanOrEqualTo(43);
    }
}
