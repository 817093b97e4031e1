package io.actiongate.approver.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.actiongate.approver.review.Identity;
import io.actiongate.approver.review.Refusal;

class ChallengesAndSessionsTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T22:00:00Z"));
    private final io.actiongate.approver.state.SharedState state = new io.actiongate.approver.state.LocalState();
    private final Challenges challenges = new Challenges(state, Duration.ofMinutes(5), clock);
    private final Sealer sealer = Sealer.random();

    @Test
    void shouldShowTheSameOpenChallengeOnEveryReloadOnEveryReplica() {
        // reloading a review page used to mint a new challenge each time, locking the reviewer out
        Challenges other = new Challenges(state, Duration.ofMinutes(5), clock);
        Challenges.Challenge first = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        for (int i = 0; i < 100; i++) {
            clock.advance(Duration.ofSeconds(1));
            assertThat((i % 2 == 0 ? other : challenges).issue("s1", "alice", "T-1/c-1", "sha256:aa"))
                    .as("reload %d", i).isEqualTo(first);
        }
        assertThat(challenges.size()).isOne();
        // every other action still gets its place: the bound counts actions under review
        for (int i = 1; i < Challenges.MAX_OPEN_PER_SESSION; i++) {
            assertThat(challenges.issue("s1", "alice", "T-1/o-" + i, "sha256:aa")).as("action %d", i).isNotNull();
        }
        assertThat(challenges.issue("s1", "alice", "T-1/o-x", "sha256:aa")).isNull();
        assertThat(challenges.consume(first.id(), "s1", "alice", "T-1/c-1").ok()).isTrue();
    }

    @Test
    void shouldReplaceTheOpenChallengeOnlyOncePostedOrExpired() {
        Challenges.Challenge first = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        assertThat(challenges.consume(first.id(), "s1", "alice", "T-1/c-1").ok()).isTrue();
        Challenges.Challenge afterPost = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        assertThat(afterPost.id()).isNotEqualTo(first.id());

        clock.advance(Duration.ofMinutes(5));
        Challenges.Challenge afterExpiry = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        assertThat(afterExpiry.id()).isNotEqualTo(afterPost.id());
        assertThat(challenges.consume(afterExpiry.id(), "s1", "alice", "T-1/c-1").ok()).isTrue();
        // another session, another subject or another digest never shares a challenge
        Challenges.Challenge mine = challenges.issue("s1", "alice", "T-1/c-2", "sha256:aa");
        assertThat(challenges.issue("s2", "alice", "T-1/c-2", "sha256:aa")).isNotEqualTo(mine);
        Challenges.Challenge otherDigest = challenges.issue("s1", "alice", "T-1/c-2", "sha256:bb");
        assertThat(otherDigest).isNotEqualTo(mine);
        assertThat(challenges.consume(mine.id(), "s1", "alice", "T-1/c-2").ok()).as("the replaced form").isFalse();
        challenges.sweep();
    }

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
    void shouldBoundTheOpenReviewFormsOfASessionOnEveryReplica() {
        // a second replica: its own Challenges on the same shared state
        Challenges other = new Challenges(state, Duration.ofMinutes(5), clock);
        for (int i = 0; i < Challenges.MAX_OPEN_PER_SESSION; i++) {
            assertThat((i % 2 == 0 ? challenges : other).issue("s1", "alice", "T-1/c-" + i, "sha256:aa")).isNotNull();
        }
        assertThat(challenges.issue("s1", "alice", "T-1/c-x", "sha256:aa")).isNull();
        assertThat(other.issue("s1", "alice", "T-1/c-x", "sha256:aa")).isNull();
        assertThat(challenges.issue("s2", "alice", "T-1/c-x", "sha256:aa")).as("another session").isNotNull();

        // the forms free up as they expire, and the sweep forgets the session's count with them
        clock.advance(Duration.ofMinutes(6));
        assertThat(challenges.issue("s1", "alice", "T-1/c-y", "sha256:aa")).isNotNull();
        clock.advance(Duration.ofMinutes(11));
        challenges.sweep();
        assertThat(state.keys("challenge-quota/")).isEmpty();
        assertThat(challenges.size()).isZero();
    }

    @Test
    void shouldFreeAFormsPlaceWhenItIsPostedSoAReviewerWorkingThroughTheQueueIsNeverRefused() {
        Challenges other = new Challenges(state, Duration.ofMinutes(5), clock);
        // far more decisions than open forms within one form lifetime, each form used before the next is opened
        for (int i = 0; i < 3 * Challenges.MAX_OPEN_PER_SESSION; i++) {
            Challenges.Challenge c = (i % 2 == 0 ? challenges : other).issue("s1", "alice", "T-1/c-" + i,
                    "sha256:aa");
            assertThat(c).as("form %d", i).isNotNull();
            assertThat((i % 2 == 0 ? other : challenges).consume(c.id(), "s1", "alice", "T-1/c-" + i).ok()).isTrue();
        }
        // a form burnt by a wrong post frees its place too, and cannot be used afterwards
        Challenges.Challenge burnt = challenges.issue("s1", "alice", "T-1/c-b", "sha256:aa");
        assertThat(challenges.consume(burnt.id(), "s1", "alice", "T-1/c-other").refusal())
                .isEqualTo(Refusal.CHALLENGE_MISMATCH);
        assertThat(challenges.consume(burnt.id(), "s1", "alice", "T-1/c-b").ok()).isFalse();
        // what is still bounded: forms opened and never posted
        for (int i = 0; i < Challenges.MAX_OPEN_PER_SESSION; i++) {
            assertThat(challenges.issue("s1", "alice", "T-1/o-" + i, "sha256:aa")).isNotNull();
        }
        assertThat(challenges.issue("s1", "alice", "T-1/o-x", "sha256:aa")).isNull();
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
    void shouldForgetExpiredChallengesAndTheirUseMarks() {
        Challenges.Challenge used = challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        challenges.consume(used.id(), "s1", "alice", "T-1/c-1");
        challenges.issue("s1", "alice", "T-1/c-1", "sha256:aa");
        assertThat(challenges.size()).isEqualTo(2);

        clock.advance(Duration.ofMinutes(10).plusSeconds(1));
        challenges.sweep();

        assertThat(challenges.size()).isZero();
        assertThat(state.keys("")).isEmpty();
        assertThat(challenges.consume(used.id(), "s1", "alice", "T-1/c-1").ok()).isFalse();
    }

    @Test
    void shouldEndSessionsWhenIdleOrTooOld() {
        Sessions sessions = new Sessions(state, sealer, Duration.ofMinutes(15), Duration.ofHours(1), clock);
        Identity alice = new Identity("alice", "demo", null, null);
        String idle = sessions.seal(sessions.create(alice));
        Session busy = sessions.create(alice);
        String busyCookie = sessions.seal(busy);

        for (int i = 0; i < 4; i++) {
            clock.advance(Duration.ofMinutes(14));
            Session found = sessions.find(busyCookie).orElseThrow();
            busyCookie = sessions.seal(found); // every answer carries the touched session again
        }
        assertThat(sessions.find(idle)).as("idle for 56 min").isEmpty();
        clock.advance(Duration.ofMinutes(5));
        assertThat(sessions.find(busyCookie)).as("older than the maximum").isEmpty();
        assertThat(sessions.find(null)).isEmpty();
        assertThat(sessions.find("forged")).isEmpty();
        assertThat(busy.csrf()).hasSizeGreaterThanOrEqualTo(43);
    }

    @Test
    void shouldOpenASessionOnEveryReplicaSharingTheKeyAndEndItEverywhereAtSignOut() {
        Sessions replicaA = new Sessions(state, sealer, Duration.ofMinutes(15), Duration.ofHours(8), clock);
        Sessions replicaB = new Sessions(state, sealer, Duration.ofMinutes(15), Duration.ofHours(8), clock);
        Sessions otherKey = new Sessions(state, Sealer.random(), Duration.ofMinutes(15), Duration.ofHours(8), clock);
        Session s = replicaA.create(new Identity("alice", "demo", "alice@example.com", "Alice"));
        String cookie = replicaA.seal(s);

        assertThat(replicaB.find(cookie)).get().satisfies(x -> {
            assertThat(x.identity().subject()).isEqualTo("alice");
            assertThat(x.csrf()).isEqualTo(s.csrf());
        });
        assertThat(otherKey.find(cookie)).as("another key opens nothing").isEmpty();
        char c = cookie.charAt(cookie.length() - 3);
        String tampered = cookie.substring(0, cookie.length() - 3) + (c == 'A' ? 'B' : 'A')
                + cookie.substring(cookie.length() - 2);
        assertThat(replicaB.find(tampered)).isEmpty();

        replicaA.end(s);

        assertThat(replicaB.find(cookie)).as("a copy of the cookie after sign-out").isEmpty();
        clock.advance(Duration.ofHours(9));
        replicaB.sweep();
        assertThat(state.keys("session-ended/")).isEmpty();
    }
}
