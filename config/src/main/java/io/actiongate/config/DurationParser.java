package io.actiongate.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Durations in configuration: {@code 250ms}, {@code 60s}, {@code 10m}, {@code 24h}, {@code 7d}, ISO-8601
 * ({@code PT24H}) or plain milliseconds.
 */
public final class DurationParser {

    private DurationParser() {
    }

    /** Parses {@code text}; throws {@link IllegalArgumentException} when it is not a non-negative duration. */
    public static Duration parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty duration");
        }
        String s = text.trim().toLowerCase(Locale.ROOT);
        Duration d;
        try {
            if (s.startsWith("p")) {
                d = Duration.parse(s.toUpperCase(Locale.ROOT));
            } else if (s.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2).trim()));
            } else if (s.endsWith("s")) {
                d = Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1).trim()));
            } else if (s.endsWith("m")) {
                d = Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1).trim()));
            } else if (s.endsWith("h")) {
                d = Duration.ofHours(Long.parseLong(s.substring(0, s.length() - 1).trim()));
            } else if (s.endsWith("d")) {
                d = Duration.ofDays(Long.parseLong(s.substring(0, s.length() - 1).trim()));
            } else {
                d = Duration.ofMillis(Long.parseLong(s));
            }
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("not a duration (use e.g. 60s, 10m, 24h, 7d or PT24H): " + text);
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException("negative duration: " + text);
        }
        return d;
    }

    /**
     * A {@link ConfigDef.Validator} accepting durations between {@code min} and {@code max} inclusive (and null, the
     * value of a key defined without a default that is not set).
     */
    public static Range between(Duration min, Duration max) {
        return new Range(min, max);
    }

    /**
     * The validator of every duration key: a key defined with it is read with {@link #parse}, so one syntax holds
     * for every configuration (tests find the duration keys of a {@link ConfigDef} by this type).
     */
    public record Range(Duration min, Duration max) implements ConfigDef.Validator {

        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                return; // a key without a default that is not set: its reader decides
            }
            Duration d;
            try {
                d = parse(value == null ? null : value.toString());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                throw new ConfigException(name, value, "must be between " + min + " and " + max);
            }
        }

        @Override
        public String toString() {
            return "duration in [" + min + ", " + max + "], e.g. 60s, 10m, 24h, 7d, PT24H";
        }
    }
}
