package io.actiongate.gate.internal;

/**
 * Keys of the {@code gate-timer-index} and {@code gate-timers} stores: {@code <due millis, 19 digits>|<kind>|<id>}. Zero-padded due times sort
 * lexicographically in time order, so the punctuator range-scans from the start to "now" and touches only due
 * entries.
 */
public final class Timers {

    /** What a timer does when it fires. */
    public enum Kind {
        /** WAITING_APPROVAL past its deadline: EXPIRED. */
        APPROVAL_DEADLINE('A'),
        /** RETRY_WAIT reached retry_at: recheck and reserve the next attempt. */
        RETRY('R'),
        /** DISPATCHING with no outcome by lease_expires_at + dispatch timeout: UNKNOWN. */
        LEASE('L'),
        /**
         * Terminal action past the dedupe window: removed. Only written by earlier releases (a scan purges settled
         * actions now); such entries in {@code gate-timers} still fire.
         */
        PURGE_ACTION('P'),
        /** Used decision id past the dedupe window: forgotten. */
        PURGE_DECISION('D'),
        /** Decision id claim past the dedupe window and the decision's expiry: forgotten. */
        PURGE_CLAIM('C');

        private final char code;

        Kind(char code) {
            this.code = code;
        }

        static Kind of(char code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            // a kind a newer gate logs: firing it as anything else, or dropping it, could lose what it is for
            StringBuilder known = new StringBuilder();
            for (Kind k : values()) {
                known.append(known.length() == 0 ? "" : " ").append(k.code);
            }
            throw new io.actiongate.serde.UnknownFormatException("gate-timers", "a timer of kind '" + code + "'",
                    null, "timer kinds " + known);
        }
    }

    /** A parsed timer key. */
    public record Timer(long due, Kind kind, String id) {
    }

    /** Below every timer key. */
    public static final String LOWER_BOUND = "0";

    private Timers() {
    }

    public static String key(long due, Kind kind, String id) {
        return paddedDue(due, 23 + id.length()).append('|').append(kind.code).append('|').append(id).toString();
    }

    /** The upper bound (inclusive, above every key) of all timers due at or before {@code now}. */
    public static String dueUpperBound(long now) {
        return paddedDue(now, 21).append("|~").toString();
    }

    private static StringBuilder paddedDue(long due, int capacity) {
        String digits = Long.toString(Math.max(0, due));
        StringBuilder out = new StringBuilder(capacity);
        for (int i = digits.length(); i < 19; i++) {
            out.append('0');
        }
        return out.append(digits);
    }

    public static Timer parse(String key) {
        return new Timer(Long.parseLong(key.substring(0, 19)), Kind.of(key.charAt(20)), key.substring(22));
    }
}
