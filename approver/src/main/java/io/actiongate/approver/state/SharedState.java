package io.actiongate.approver.state;

import java.util.Optional;

/**
 * The approval service's own state, shared by every replica: small values by key, written so that a replica that
 * wrote has read its own write before the call returns, with two primitives that give single use across replicas.
 * {@link KafkaState} keeps it on a compacted topic of the approver's own; {@link LocalState} in memory (tests, one
 * replica).
 */
public interface SharedState {

    /** A value and the version it has (1 for the first write of the key). */
    record Versioned(long version, byte[] value) {
    }

    Optional<Versioned> get(String key);

    /**
     * Writes {@code value} as version {@code expectedVersion + 1} of {@code key} only if the key is at
     * {@code expectedVersion} now (0: absent), across every replica: of concurrent writers with the same expected
     * version exactly one succeeds. Returns whether this one did.
     */
    boolean compareAndSet(String key, long expectedVersion, byte[] value);

    /**
     * Claims {@code key} once: of every claim on the key, on any replica, ever (until {@link #forget}), exactly one
     * returns true. The single use of challenges and one-time codes rests on it.
     */
    boolean claim(String key);

    /** Whether {@code key} was claimed, as this replica knows it now (a claim made elsewhere shows once read). */
    boolean claimed(String key);

    /** The keys (values and claims) starting with {@code prefix}, as this replica knows them now (for sweeping). */
    java.util.List<String> keys(String prefix);

    /** Removes the key (and a claim on it). */
    void forget(String key);
}
