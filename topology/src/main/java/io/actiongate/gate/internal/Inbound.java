package io.actiongate.gate.internal;

/**
 * A decoded input record with the raw bytes it came from, so a later refusal (a failed decision) can still
 * name the payload by hash and size in a dead letter, and where it was first read ({@code origin}, null for its
 * own position) so that dead letter names the producer's record also after a hop. {@code signatureVerified} is
 * true only for a decision whose signature the gate itself verified upstream (in the claim): set by the topology's
 * shape, never by anything in the record. Lives only inside one task; never serialized.
 */
public record Inbound<T>(T value, byte[] rawKey, byte[] rawValue, Origin origin, boolean signatureVerified) {

    public Inbound(T value, byte[] rawKey, byte[] rawValue) {
        this(value, rawKey, rawValue, null, false);
    }

    public Inbound(T value, byte[] rawKey, byte[] rawValue, Origin origin) {
        this(value, rawKey, rawValue, origin, false);
    }
}
