package io.actiongate.gate.internal;

/** Names of the topology's sink nodes. */
public final class Sinks {

    /** Where processors send receipts: an observer node (metrics) in front of {@link #RECEIPTS_OUT}. */
    public static final String RECEIPTS = "receipts-observe";
    public static final String RECEIPTS_OUT = "receipts-sink";
    public static final String ATTEMPTS = "attempts-sink";
    public static final String UNKNOWN_OUTCOMES = "unknown-outcomes-sink";
    public static final String CONFLICTS = "conflicts-sink";
    public static final String DEAD_LETTERS = DeadLetters.SINK;

    private Sinks() {
    }
}
