package io.actiongate.reconciler;

import java.time.Duration;
import java.util.Objects;

/** Bounded exponential backoff: {@code initial}, then doubling after each inconclusive lookup, capped at {@code max}. */
public record Backoff(Duration initial, Duration max) {

    public Backoff {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(max, "max");
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("need 0 < initial <= max");
        }
    }

    /** The wait after the {@code lookupsDone}-th inconclusive lookup (1-based). */
    public Duration delayAfter(int lookupsDone) {
        if (lookupsDone < 1) {
            return Duration.ZERO;
        }
        int shift = Math.min(lookupsDone - 1, 30);
        long millis = initial.toMillis();
        long limit = max.toMillis();
        long delay = millis > (limit >> shift) ? limit : millis << shift;
        return Duration.ofMillis(Math.min(delay, limit));
    }
}
