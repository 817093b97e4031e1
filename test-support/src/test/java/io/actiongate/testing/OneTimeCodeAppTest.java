package io.actiongate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.junit.jupiter.api.Test;

class OneTimeCodeAppTest {

    /** RFC 6238 appendix B's SHA-1 seed, the ASCII of "12345678901234567890", in base32. */
    private static final String RFC_SEED = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

    @Test
    void shouldGiveTheRfcTestVectorsLastSixDigits() {
        OneTimeCodeApp app = new OneTimeCodeApp(RFC_SEED);
        assertThat(app.codeAt(OneTimeCodeApp.stepAt(Instant.ofEpochSecond(59)))).isEqualTo("287082");
        assertThat(app.codeAt(OneTimeCodeApp.stepAt(Instant.ofEpochSecond(1111111109)))).isEqualTo("081804");
        assertThat(app.codeAt(OneTimeCodeApp.stepAt(Instant.ofEpochSecond(1111111111)))).isEqualTo("050471");
        assertThat(app.codeAt(OneTimeCodeApp.stepAt(Instant.ofEpochSecond(1234567890)))).isEqualTo("005924");
        assertThat(app.codeAt(OneTimeCodeApp.stepAt(Instant.ofEpochSecond(2000000000)))).isEqualTo("279037");
        assertThat(app.codeAt(OneTimeCodeApp.stepAt(Instant.ofEpochSecond(20000000000L)))).isEqualTo("353130");
    }

    @Test
    void shouldReadTheSecretAsAPersonTypesIt() {
        assertThat(new OneTimeCodeApp("gezd gnbv gy3t qojq gezd gnbv gy3t qojq====").codeAt(1)).isEqualTo("287082");
        assertThat(OneTimeCodeApp.decode("MZXW6YTBOI")).isEqualTo("foobar".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Test
    void shouldRefuseASecretThatIsNotBase32() {
        assertThatThrownBy(() -> new OneTimeCodeApp("ABC1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'1' at 3");
        assertThatThrownBy(() -> new OneTimeCodeApp(" = ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
    }

    @Test
    void shouldGiveEachStepsCodeOnceAndWaitForTheNextStep() throws InterruptedException {
        // what the clock reads, in turn: step 100; still step 100; 50 ms before step 101 (the wait); step 101
        Deque<Long> readings = new ArrayDeque<>(List.of(3_000_000L, 3_010_000L, 3_029_950L, 3_030_000L));
        Clock moving = new Clock() {
            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(readings.size() > 1 ? readings.poll() : readings.peek());
            }

            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }
        };
        OneTimeCodeApp app = new OneTimeCodeApp(RFC_SEED, moving);
        String first = app.nextCode();
        String second = app.nextCode();
        assertThat(first).isEqualTo(app.codeAt(100));
        assertThat(second).isEqualTo(app.codeAt(101)).isNotEqualTo(first);
        assertThat(readings).as("the clock read until step 101 began").containsExactly(3_030_000L);
    }
}
