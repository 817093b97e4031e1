package io.actiongate.topics;

import java.time.Duration;
import java.util.List;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.Decision;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.UnknownOutcome;
import io.actiongate.serde.AvroSerdes;

/** Every topic of docs/contract.md section 2, each with its key and value serde. */
public final class Topics {

    public static final String DEFAULT_PREFIX = "actiongate.";
    public static final int DEFAULT_PARTITIONS = 12;
    public static final Duration OPERATOR_RETENTION = Duration.ofDays(7);

    private static final Serde<String> KEYS = Serdes.String();

    public static final TopicSpec<String, ActionProposal> PROPOSALS =
            compacted("proposals", AvroSerdes.serde(ActionProposal.class));
    public static final TopicSpec<String, Decision> DECISIONS =
            compacted("decisions", AvroSerdes.serde(Decision.class));
    public static final TopicSpec<String, PolicyRecord> POLICY =
            compacted("policy", AvroSerdes.serde(PolicyRecord.class));
    public static final TopicSpec<String, AttemptReservation> ATTEMPTS =
            compacted("attempts", AvroSerdes.serde(AttemptReservation.class));
    public static final TopicSpec<String, AttemptOutcome> OUTCOMES =
            compacted("outcomes", AvroSerdes.serde(AttemptOutcome.class));
    public static final TopicSpec<String, UnknownOutcome> UNKNOWN_OUTCOMES =
            compacted("unknown-outcomes", AvroSerdes.serde(UnknownOutcome.class));
    public static final TopicSpec<String, Reconciliation> RECONCILIATIONS =
            compacted("reconciliations", AvroSerdes.serde(Reconciliation.class));
    public static final TopicSpec<String, Receipt> RECEIPTS =
            compacted("receipts", AvroSerdes.serde(Receipt.class));
    public static final TopicSpec<String, IdentityConflict> CONFLICTS = new TopicSpec<>("conflicts", KEYS,
            AvroSerdes.serde(IdentityConflict.class), TopicSpec.Cleanup.DELETE, OPERATOR_RETENTION);
    public static final TopicSpec<byte[], DeadLetter> DEAD_LETTERS = new TopicSpec<>("dead-letters",
            Serdes.ByteArray(), AvroSerdes.serde(DeadLetter.class), TopicSpec.Cleanup.DELETE, OPERATOR_RETENTION);

    /** All topics, in the order of the contract's table. */
    public static final List<TopicSpec<?, ?>> ALL = List.of(PROPOSALS, DECISIONS, POLICY, ATTEMPTS, OUTCOMES,
            UNKNOWN_OUTCOMES, RECONCILIATIONS, RECEIPTS, CONFLICTS, DEAD_LETTERS);

    /**
     * The topics only actiongate's own roles write (the contract's table: gate, executor, reconciler). A record of a
     * version a role does not read is a newer actiongate's on these, and the role stops; on the others (proposals,
     * decisions, policy), outside producers write too, and such a record stays a dead letter (docs/contract.md
     * section 3, "Versions a role does not read").
     */
    public static final List<TopicSpec<?, ?>> WRITTEN_ONLY_BY_ACTIONGATE = List.of(ATTEMPTS, OUTCOMES,
            UNKNOWN_OUTCOMES, RECONCILIATIONS, RECEIPTS, CONFLICTS, DEAD_LETTERS);

    private Topics() {
    }

    /** Whether the topic whose values are of {@code valueType} is one of {@link #WRITTEN_ONLY_BY_ACTIONGATE}. */
    public static boolean writtenOnlyByActiongate(Class<?> valueType) {
        for (TopicSpec<?, ?> spec : WRITTEN_ONLY_BY_ACTIONGATE) {
            if (spec.valueSerde() instanceof io.actiongate.serde.AvroSerde<?> avro && avro.type() == valueType) {
                return true;
            }
        }
        return false;
    }

    /** The full names of {@link #ALL} under {@code prefix}, in the same order. */
    public static List<String> names(String prefix) {
        return ALL.stream().map(spec -> spec.name(prefix)).toList();
    }

    private static <V> TopicSpec<String, V> compacted(String suffix, Serde<V> values) {
        return new TopicSpec<>(suffix, KEYS, values, TopicSpec.Cleanup.COMPACT, null);
    }
}
