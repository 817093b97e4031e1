package io.actiongate.approver.stepup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.actiongate.approver.state.LocalState;
import io.actiongate.approver.web.Sealer;

class TotpTest {

    // RFC 6238 appendix B, SHA-1 seed, last six digits of the eight-digit values
    private static final byte[] SEED = "12345678901234567890".getBytes(StandardCharsets.US_ASCII);

    @Test
    void shouldMatchTheRfc6238TestVectors() {
        assertThat(Totp.code(SEED, Totp.step(Instant.ofEpochSecond(59)))).isEqualTo("287082");
        assertThat(Totp.code(SEED, Totp.step(Instant.ofEpochSecond(1111111109)))).isEqualTo("081804");
        assertThat(Totp.code(SEED, Totp.step(Instant.ofEpochSecond(1234567890)))).isEqualTo("005924");
        assertThat(Totp.code(SEED, Totp.step(Instant.ofEpochSecond(20000000000L)))).isEqualTo("353130");
    }

    @Test
    void shouldAcceptOneStepOfDriftButNoMore() {
        Instant now = Instant.ofEpochSecond(1234567890);
        long step = Totp.step(now);
        assertThat(Totp.verify(SEED, Totp.code(SEED, step - 1), now)).isEqualTo(step - 1);
        assertThat(Totp.verify(SEED, Totp.code(SEED, step + 1), now)).isEqualTo(step + 1);
        assertThat(Totp.verify(SEED, Totp.code(SEED, step - 2), now)).isEqualTo(-1);
        assertThat(Totp.verify(SEED, "12345", now)).isEqualTo(-1);
        assertThat(Totp.verify(SEED, null, now)).isEqualTo(-1);
    }

    @Test
    void shouldRefuseACodeWhoseStepWasAlreadyUsed() {
        StepUpStore store = new StepUpStore(new LocalState(), Sealer.random());
        Instant now = Instant.ofEpochSecond(1234567890);
        store.setTotp("demo", "alice", SEED, Totp.step(now) - 5, true);
        String code = Totp.code(SEED, Totp.step(now));

        assertThat(store.useTotp("demo", "alice", code, now)).isTrue();
        assertThat(store.useTotp("demo", "alice", code, now)).as("replayed").isFalse();
        assertThat(store.useTotp("demo", "bob", code, now)).as("another person").isFalse();
    }

    @Test
    void shouldRoundTripBase32() {
        byte[] secret = {0, 1, 2, (byte) 0xff, 0x7f, 9, 10, 11, 12, 13};
        assertThat(Totp.unbase32(Totp.base32(secret))).isEqualTo(secret);
        assertThat(Totp.base32("foobar".getBytes(StandardCharsets.US_ASCII))).isEqualTo("MZXW6YTBOI");
    }

    @Test
    void shouldLockStepUpAfterFiveFailuresWithinFifteenMinutes() {
        StepUpStore store = new StepUpStore(new LocalState(), Sealer.random());
        Instant t = Instant.parse("2026-11-30T22:00:00Z");
        for (int i = 0; i < 4; i++) {
            store.recordFailure("demo", "alice", t.plusSeconds(i));
        }
        assertThat(store.locked("demo", "alice", t.plusSeconds(10))).isFalse();
        store.recordFailure("demo", "alice", t.plusSeconds(10));
        assertThat(store.locked("demo", "alice", t.plusSeconds(11))).isTrue();
        assertThat(store.locked("demo", "bob", t.plusSeconds(11))).isFalse();
        assertThat(store.locked("demo", "alice", t.plusSeconds(15 * 60 + 1))).as("the oldest failure aged out")
                .isFalse();
    }

    @Test
    void shouldKeepTheSecretSealedAndReSealItUnderTheNewKeyAfterRotation() {
        LocalState state = new LocalState();
        byte[] oldKey = io.actiongate.approver.web.Tokens.randomBytes(32);
        byte[] newKey = io.actiongate.approver.web.Tokens.randomBytes(32);
        Sealer before = new Sealer(java.util.Map.of("k1", oldKey));
        java.util.Map<String, byte[]> ring = new java.util.LinkedHashMap<>();
        ring.put("k2", newKey);
        ring.put("k1", oldKey);
        Sealer after = new Sealer(ring);
        Instant now = Instant.ofEpochSecond(1234567890);
        new StepUpStore(state, before).setTotp("demo", "alice", SEED, Totp.step(now) - 5, true);
        String stored = new String(state.get(StepUpStore.key("demo", "alice")).orElseThrow().value(),
                StandardCharsets.UTF_8);
        assertThat(stored).as("never in the clear").doesNotContain(Totp.base32(SEED))
                .doesNotContain(java.util.Base64.getEncoder().encodeToString(SEED)).contains("\"k1.");

        StepUpStore rotated = new StepUpStore(state, after);
        assertThat(rotated.useTotp("demo", "alice", Totp.code(SEED, Totp.step(now)), now)).isTrue();
        assertThat(new String(state.get(StepUpStore.key("demo", "alice")).orElseThrow().value(),
                StandardCharsets.UTF_8)).as("re-sealed under the new key").contains("\"k2.").doesNotContain("\"k1.");
        assertThat(new StepUpStore(state, new Sealer(java.util.Map.of("k3", newKey.clone())))
                .useTotp("demo", "alice", Totp.code(SEED, Totp.step(now) + 1), now.plusSeconds(30)))
                .as("a key id not configured opens nothing: fail closed").isFalse();
    }

    @Test
    void shouldLetOnlyTheFirstEnrolmentLandWhenItMustBeTheFirstFactor() {
        StepUpStore store = new StepUpStore(new LocalState(), Sealer.random());
        assertThat(store.setTotp("demo", "alice", SEED, 1, true)).isTrue();
        assertThat(store.setTotp("demo", "alice", new byte[20], 1, true)).as("a second 'first' factor").isFalse();
        assertThat(store.setTotp("demo", "alice", new byte[20], 1, false)).as("after a confirmed step-up").isTrue();
        assertThat(store.reset("demo", "alice")).isTrue();
        assertThat(store.hasAny("demo", "alice")).isFalse();
        assertThat(store.reset("demo", "alice")).isFalse();
    }
}
