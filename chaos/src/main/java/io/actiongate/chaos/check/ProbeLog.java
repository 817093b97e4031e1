package io.actiongate.chaos.check;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the run's transaction probe wrote to its probe topic and how each transaction ended, as the producer saw it:
 * {@code COMMITTED} when {@code commitTransaction} returned, {@code ABORTED} when {@code abortTransaction}
 * returned, {@code UNCERTAIN} when either threw (the broker may have done either). Written by the run, read by the
 * checker, which owes the probe nothing but this log.
 */
public record ProbeLog(String topicSuffix, Map<Long, Txn> transactions) {

    /** How one probe transaction ended. */
    public enum Outcome { COMMITTED, ABORTED, UNCERTAIN }

    /** One probe transaction: its outcome and the values it sent (each value unique in the run). */
    public record Txn(Outcome outcome, List<String> values) {
        public Txn {
            values = List.copyOf(values);
        }
    }

    /** No probe ran (the checker then checks nothing under (j) and says so in its counts). */
    public static final ProbeLog NONE = new ProbeLog(null, Map.of());

    public ProbeLog {
        transactions = new TreeMap<>(transactions);
    }
}
