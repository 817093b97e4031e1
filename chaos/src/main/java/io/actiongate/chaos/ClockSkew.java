package io.actiongate.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The wall-clock skew of one gate instance ({@code --gate-clock-skew}), injected with Debian's libfaketime
 * ({@code apt-get install libfaketime}): the child JVM runs with {@code LD_PRELOAD} of the library and a relative
 * {@code FAKETIME} offset, so {@code System.currentTimeMillis()} (every deadline the gate computes or checks) is off
 * by the skew, while the monotonic clock ({@code System.nanoTime()}, the JVM's timers) is left alone.
 */
final class ClockSkew {

    /** Where Debian's libfaketime package installs the library. */
    static final List<Path> LIBRARIES = List.of(Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/faketime/libfaketime.so.1"));

    private ClockSkew() {
    }

    /** The installed library, or an error that says how to install it. */
    static Path library(List<Path> candidates) {
        return candidates.stream().filter(Files::isReadable).findFirst().orElseThrow(() ->
                new IllegalStateException("--gate-clock-skew needs libfaketime (apt-get install libfaketime); "
                        + "not found at " + candidates));
    }

    /** The child's environment for {@code skew} (whole seconds, either sign); empty for no skew. */
    static Map<String, String> environment(Duration skew, Path library) {
        if (skew.isZero()) {
            return Map.of();
        }
        if (skew.toMillis() % 1_000 != 0) {
            throw new IllegalArgumentException("--gate-clock-skew takes whole seconds, got " + skew);
        }
        long seconds = skew.toSeconds();
        return Map.of("LD_PRELOAD", library.toString(),
                "FAKETIME", (seconds > 0 ? "+" : "-") + Math.abs(seconds) + "s",
                "FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }
}
