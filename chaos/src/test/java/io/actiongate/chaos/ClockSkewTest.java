package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

class ClockSkewTest {

    private static final Path LIB = Path.of("/lib/libfaketime.so.1");

    @Test
    void shouldShiftOnlyTheWallClockBySignedWholeSeconds() {
        assertThat(ClockSkew.environment(Duration.ofSeconds(3), LIB)).containsEntry("FAKETIME", "+3s")
                .containsEntry("LD_PRELOAD", LIB.toString()).containsEntry("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        assertThat(ClockSkew.environment(Duration.ofSeconds(-12), LIB)).containsEntry("FAKETIME", "-12s");
        assertThat(ClockSkew.environment(Duration.ZERO, LIB)).isEmpty();
    }

    @Test
    void shouldRefuseFractionsAndSayHowToInstallAMissingLibrary() {
        assertThatThrownBy(() -> ClockSkew.environment(Duration.ofMillis(1_500), LIB))
                .hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> ClockSkew.library(List.of(Path.of("/nonexistent/libfaketime.so.1"))))
                .hasMessageContaining("apt-get install libfaketime");
    }

    @Test
    void shouldParseASignedSkew() {
        ChaosCommand.SignedDurationConverter c = new ChaosCommand.SignedDurationConverter();
        assertThat(c.convert("+3s")).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.convert("-3s")).isEqualTo(Duration.ofSeconds(-3));
        assertThat(c.convert("0s")).isZero();
    }
}
