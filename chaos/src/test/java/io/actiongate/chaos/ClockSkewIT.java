package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM started with {@code --gate-clock-skew}'s environment sees its wall clock shifted. Needs Debian's
 * libfaketime; skipped (and says so) where it is not installed.
 */
@Tag("system")
class ClockSkewIT {

    @Test
    void shouldRunAChildJvmWithItsWallClockShifted(@TempDir Path logs) throws Exception {
        assumeTrue(ClockSkew.LIBRARIES.stream().anyMatch(Files::isReadable), "libfaketime is not installed");
        Child child = new Child("clock", Child.javaCommand("64m", PrintClock.class.getName(), List.of()),
                ClockSkew.environment(Duration.ofSeconds(-40), ClockSkew.library(ClockSkew.LIBRARIES)), logs,
                "CLOCK");
        long before = System.currentTimeMillis();
        child.start();
        try {
            assertThat(child.awaitReady(60_000)).isTrue();
            long after = System.currentTimeMillis();
            long printed = Files.readAllLines(logs.resolve("clock.log"), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.startsWith("CLOCK ")).mapToLong(l -> Long.parseLong(l.substring(6)))
                    .findFirst().orElseThrow();
            assertThat(printed).isBetween(before - 41_000, after - 39_000);
        } finally {
            child.kill9();
        }
    }
}
