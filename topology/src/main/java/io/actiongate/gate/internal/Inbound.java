package io.actiongate.gate.internal;

/**
 * A decoded input record with the raw bytes it came from, so a later refusal (a failed decision) can still
 * name the payload by hash and size in a dead letter. Lives only inside one task; never serialized.
 */
public record Inbound<T>(T value, byte[] rawKey, byte[] rawValue) {
}
