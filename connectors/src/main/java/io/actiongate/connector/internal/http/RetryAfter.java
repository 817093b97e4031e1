package io.actiongate.connector.internal.http;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads {@code Retry-After} (RFC 9110 section 10.2.3): delta-seconds or an HTTP-date in any of the three
 * formats a recipient must accept (IMF-fixdate, obsolete RFC 850, asctime). A date in the past means "now".
 */
public final class RetryAfter {

    private static final List<DateTimeFormatter> HTTP_DATES = List.of(
            DateTimeFormatter.RFC_1123_DATE_TIME,
            DateTimeFormatter.ofPattern("EEEE, dd-MMM-yy HH:mm:ss 'GMT'", Locale.US),
            DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US));

    /** Longer delays are nonsense from any provider; capping the parse avoids overflow. */
    private static final long MAX_SECONDS = 365L * 24 * 3600;

    private RetryAfter() {
    }

    /** The instant the header asks us to wait until, or empty when the value is absent or not understood. */
    public static Optional<Instant> parse(String value, Instant now) {
        if (value == null) {
            return Optional.empty();
        }
        String v = value.strip();
        if (v.isEmpty()) {
            return Optional.empty();
        }
        if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.of(now.plusSeconds(boundedSeconds(v)));
        }
        return httpDate(v).map(date -> date.isBefore(now) ? now : date);
    }

    /** An epoch-seconds value such as X's {@code x-rate-limit-reset}; past values mean "now". */
    public static Optional<Instant> parseEpochSeconds(String value, Instant now) {
        if (value == null) {
            return Optional.empty();
        }
        String v = value.strip();
        if (v.isEmpty() || v.length() > 12 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.empty();
        }
        Instant at = Instant.ofEpochSecond(Long.parseLong(v));
        return Optional.of(at.isBefore(now) ? now : at);
    }

    private static long boundedSeconds(String digits) {
        if (digits.length() > 12) {
            return MAX_SECONDS;
        }
        return Math.min(Long.parseLong(digits), MAX_SECONDS);
    }

    private static Optional<Instant> httpDate(String v) {
        for (DateTimeFormatter format : HTTP_DATES) {
            try {
                if (format == DateTimeFormatter.RFC_1123_DATE_TIME) {
                    return Optional.of(ZonedDateTime.parse(v, format).toInstant());
                }
                LocalDateTime local = LocalDateTime.parse(v, format);
                if (format == HTTP_DATES.get(1) && local.getYear() > LocalDateTime.now(ZoneOffset.UTC).getYear() + 50) {
                    // RFC 9110: a two-digit year more than 50 years ahead is the most recent past year
                    local = local.minusYears(100);
                }
                return Optional.of(local.toInstant(ZoneOffset.UTC));
            } catch (DateTimeParseException e) {
                // try the next format
            }
        }
        return Optional.empty();
    }
}
