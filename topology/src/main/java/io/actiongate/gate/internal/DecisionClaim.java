package io.actiongate.gate.internal;

/**
 * The one signed decision that owns a {@code decision_id} (store {@code gate-decision-claims}, kept in the task
 * that owns murmur2 of the decision id). {@code fingerprint} names the signed decision (its key id and its
 * Ed25519 signature, which is deterministic and covers every other field), so a redelivery of the same decision
 * is recognised and any other decision carrying the id is not. {@code v} is the layout version.
 */
public record DecisionClaim(int v, String actionKey, String fingerprint, long claimedAt) {

    public static final int VERSION = 1;

    public static DecisionClaim of(String actionKey, String fingerprint, long claimedAt) {
        return new DecisionClaim(VERSION, actionKey, fingerprint, claimedAt);
    }

    /** The serde of {@code gate-decision-claims}: a claim of a layout after {@link #VERSION} stops the gate. */
    public static JsonSerde<DecisionClaim> serde() {
        return new JsonSerde<>(DecisionClaim.class, DecisionClaim::v, VERSION);
    }
}
