package io.actiongate.connector.internal.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class RetryAfterTest {

    static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");

    @Test
    void shouldAddDeltaSeconds() {
        assertThat(RetryAfter.parse("120", NOW)).contains(NOW.plusSeconds(120));
        assertThat(RetryAfter.parse(" 0 ", NOW)).contains(NOW);
    }

    @Test
    void shouldBoundHugeDeltaInsteadOfOverflowing() {
        assertThat(RetryAfter.parse("99999999999999999999999", NOW)).contains(NOW.plusSeconds(365L * 24 * 3600));
    }

    @Test
    void shouldReadImfFixdate() {
        assertThat(RetryAfter.parse("Mon, 30 Nov 2026 02:05:00 GMT", NOW)).contains(NOW.plusSeconds(300));
    }

    @Test
    void shouldReadObsoleteRfc850Date() {
        assertThat(RetryAfter.parse("Monday, 30-Nov-26 02:05:00 GMT", NOW)).contains(NOW.plusSeconds(300));
    }

    @Test
    void shouldReadAsctimeDate() {
        assertThat(RetryAfter.parse("Mon Nov 30 02:05:00 2026", NOW)).contains(NOW.plusSeconds(300));
        assertThat(RetryAfter.parse("Tue Dec  1 02:00:00 2026", NOW)).contains(NOW.plusSeconds(86_400));
    }

    @Test
    void shouldTreatPastDateAsNow() {
        assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", NOW)).contains(NOW);
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "  ", "-5", "1.5", "soon", "2026-11-30T02:05:00Z", "Mon, 30 Nov 2026", "12s"})
    void shouldIgnoreGarbage(String value) {
        assertThat(RetryAfter.parse(value, NOW)).isEmpty();
    }

    @Test
    void shouldReadEpochSecondsAndClampPast() {
        assertThat(RetryAfter.parseEpochSeconds(String.valueOf(NOW.getEpochSecond() + 42), NOW))
                .contains(NOW.plusSeconds(42));
        assertThat(RetryAfter.parseEpochSeconds("1000", NOW)).contains(NOW);
        assertThat(RetryAfter.parseEpochSeconds("soon", NOW)).isEmpty();
        assertThat(RetryAfter.parseEpochSeconds(null, NOW)).isEmpty();
    }
}
