package io.actiongate.chaos.check;

/**
 * An action the load submitted: its record key ({@code task/call}), its kind (READ, APPROVED, REJECTED,
 * CONFLICTING, REDELIVERED), whether the broker acknowledged its proposal, and the marker planted in its input.
 */
public record ExpectedAction(String key, String kind, boolean acked, String marker) {
}
