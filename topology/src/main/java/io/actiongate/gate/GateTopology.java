package io.actiongate.gate;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.Decision;
import io.actiongate.avro.Reconciliation;
import io.actiongate.gate.internal.AttachmentCheck;
import io.actiongate.gate.internal.CredentialCheck;
import io.actiongate.gate.internal.DecisionProcessor;
import io.actiongate.gate.internal.DecodeProcessor;
import io.actiongate.gate.internal.OutcomeProcessor;
import io.actiongate.gate.internal.PolicyUpdateProcessor;
import io.actiongate.gate.internal.ProposalProcessor;
import io.actiongate.gate.internal.ReconciliationProcessor;
import io.actiongate.gate.internal.Sinks;
import io.actiongate.gate.internal.TimerProcessor;
import io.actiongate.serde.AvroSerde;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

/**
 * The gate: ARCHITECTURE.md section 4 as a Kafka Streams {@link Topology}. A pure factory; {@link GateStreams}
 * runs it. Every input is consumed as bytes and decoded in one place per topic (undecodable records become dead
 * letters); the action-keyed inputs share one sub-topology and its stores, policy is a global store.
 * See DESIGN.md in this package.
 */
public final class GateTopology {

    public static final String PROPOSALS_SOURCE = "proposals-source";
    public static final String PROPOSALS_DECODE = "proposals-decode";
    public static final String ADMIT = "gate-admit";
    public static final String DECISIONS_SOURCE = "decisions-source";
    public static final String DECISIONS_DECODE = "decisions-decode";
    public static final String DECIDE = "gate-decide";
    public static final String OUTCOMES_SOURCE = "outcomes-source";
    public static final String OUTCOMES_DECODE = "outcomes-decode";
    public static final String SETTLE = "gate-settle-outcome";
    public static final String RECONCILIATIONS_SOURCE = "reconciliations-source";
    public static final String RECONCILIATIONS_DECODE = "reconciliations-decode";
    public static final String RECONCILE = "gate-reconcile";
    public static final String TIMERS = "gate-timers";
    public static final String POLICY_SOURCE = "policy-source";
    public static final String POLICY_UPDATE = "policy-update";

    private GateTopology() {
    }

    /** The gate topology with the default credential scanner. */
    public static Topology build(GateConfig config) {
        return build(config, ScannerCredentialCheck.defaults());
    }

    /** The gate topology with the given credential check. */
    public static Topology build(GateConfig config, CredentialCheck credentials) {
        return build(config, credentials, ReceiptObserver.NONE);
    }

    /** The gate topology with the given credential check and an observer of every published receipt. */
    public static Topology build(GateConfig config, CredentialCheck credentials, ReceiptObserver receipts) {
        return build(config, credentials, receipts, AttachmentCheck.WITHOUT_STORAGE);
    }

    /** As above, with the admission check of attachments against object storage. */
    public static Topology build(GateConfig config, CredentialCheck credentials, ReceiptObserver receipts,
                                 AttachmentCheck attachments) {
        String prefix = config.topicPrefix();
        Deserializer<byte[]> bytes = Serdes.ByteArray().deserializer();
        Topology t = new Topology();

        t.addGlobalStore(Stores.policy(), POLICY_SOURCE, bytes, bytes, Topics.POLICY.name(prefix), POLICY_UPDATE,
                PolicyUpdateProcessor::new);

        source(t, PROPOSALS_SOURCE, Topics.PROPOSALS, prefix, bytes);
        t.addProcessor(PROPOSALS_DECODE, DecodeProcessor.supplier(avro(Topics.PROPOSALS), ADMIT), PROPOSALS_SOURCE);
        t.addProcessor(ADMIT, (ProcessorSupplier<String, io.actiongate.gate.internal.Inbound<ActionProposal>, Object, Object>)
                () -> new ProposalProcessor(config, credentials, attachments), PROPOSALS_DECODE);
        t.addProcessor(TIMERS, () -> new TimerProcessor(config), PROPOSALS_DECODE);

        source(t, DECISIONS_SOURCE, Topics.DECISIONS, prefix, bytes);
        t.addProcessor(DECISIONS_DECODE, DecodeProcessor.supplier(avro(Topics.DECISIONS), DECIDE), DECISIONS_SOURCE);
        t.addProcessor(DECIDE, (ProcessorSupplier<String, io.actiongate.gate.internal.Inbound<Decision>, Object, Object>)
                () -> new DecisionProcessor(config), DECISIONS_DECODE);

        source(t, OUTCOMES_SOURCE, Topics.OUTCOMES, prefix, bytes);
        t.addProcessor(OUTCOMES_DECODE, DecodeProcessor.supplier(avro(Topics.OUTCOMES), SETTLE), OUTCOMES_SOURCE);
        t.addProcessor(SETTLE, (ProcessorSupplier<String, io.actiongate.gate.internal.Inbound<AttemptOutcome>, Object, Object>)
                () -> new OutcomeProcessor(config), OUTCOMES_DECODE);

        source(t, RECONCILIATIONS_SOURCE, Topics.RECONCILIATIONS, prefix, bytes);
        t.addProcessor(RECONCILIATIONS_DECODE, DecodeProcessor.supplier(avro(Topics.RECONCILIATIONS), RECONCILE),
                RECONCILIATIONS_SOURCE);
        t.addProcessor(RECONCILE, (ProcessorSupplier<String, io.actiongate.gate.internal.Inbound<Reconciliation>, Object, Object>)
                () -> new ReconciliationProcessor(config), RECONCILIATIONS_DECODE);

        String[] stateful = {ADMIT, DECIDE, SETTLE, RECONCILE, TIMERS};
        t.addStateStore(Stores.actions(), stateful);
        t.addStateStore(Stores.timers(), stateful);
        t.addStateStore(Stores.pending(), stateful);
        t.addStateStore(Stores.decisionIds(), stateful);

        t.addProcessor(Sinks.RECEIPTS, () -> new io.actiongate.gate.internal.ReceiptObserverProcessor(receipts),
                ADMIT, DECIDE, SETTLE, RECONCILE, TIMERS);
        sink(t, Sinks.RECEIPTS_OUT, Topics.RECEIPTS, prefix, Sinks.RECEIPTS);
        sink(t, Sinks.ATTEMPTS, Topics.ATTEMPTS, prefix, ADMIT, DECIDE, TIMERS);
        sink(t, Sinks.UNKNOWN_OUTCOMES, Topics.UNKNOWN_OUTCOMES, prefix, SETTLE, TIMERS);
        sink(t, Sinks.CONFLICTS, Topics.CONFLICTS, prefix, ADMIT);
        sink(t, Sinks.DEAD_LETTERS, Topics.DEAD_LETTERS, prefix, PROPOSALS_DECODE, DECISIONS_DECODE, OUTCOMES_DECODE,
                RECONCILIATIONS_DECODE, ADMIT, DECIDE, SETTLE, RECONCILE);
        return t;
    }

    private static void source(Topology t, String name, TopicSpec<?, ?> topic, String prefix,
                               Deserializer<byte[]> bytes) {
        t.addSource(name, bytes, bytes, topic.name(prefix));
    }

    private static <V extends org.apache.avro.specific.SpecificRecordBase> AvroSerde<V> avro(TopicSpec<?, V> topic) {
        return (AvroSerde<V>) topic.valueSerde();
    }

    private static <K, V> void sink(Topology t, String name, TopicSpec<K, V> topic, String prefix, String... parents) {
        Serializer<K> keys = topic.keySerde().serializer();
        Serializer<V> values = topic.valueSerde().serializer();
        t.addSink(name, topic.name(prefix), keys, values, parents);
    }
}
