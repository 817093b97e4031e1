package io.actiongate.chaos.check;

/**
 * An action the load submitted: its record key ({@code task/call}), its kind (READ, APPROVED, REJECTED,
 * CONFLICTING, REDELIVERED, or one of an upgrade run's), whether the broker acknowledged its proposal, and the marker
 * planted in its input. An upgrade run also says how some must end (check (o)): {@code endsIn} its last receipt's
 * status, {@code attemptsAtLeast} reservations, {@code resolvedBy} the last receipt's resolver; null or 0 for no
 * expectation.
 */
public record ExpectedAction(String key, String kind, boolean acked, String marker, String endsIn,
                             int attemptsAtLeast, String resolvedBy) {

    /** An action of the storm, whose end the checker does not prescribe. */
    public ExpectedAction(String key, String kind, boolean acked, String marker) {
        this(key, kind, acked, marker, null, 0, null);
    }
}
