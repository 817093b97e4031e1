package io.actiongate.gate;

import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.Decision;
import io.actiongate.avro.Reconciliation;
import io.actiongate.gate.internal.CredentialCheck;
import io.actiongate.gate.internal.DecisionClaimProcessor;
import io.actiongate.gate.internal.DecisionProcessor;
import io.actiongate.gate.internal.DecisionRouteProcessor;
import io.actiongate.gate.internal.DecodeProcessor;
import io.actiongate.gate.internal.OutcomeProcessor;
import io.actiongate.gate.internal.PolicyUpdateProcessor;
import io.actiongate.gate.internal.ProposalProcessor;
import io.actiongate.gate.internal.RawBytes;
import io.actiongate.gate.internal.GroupCommits;
import io.actiongate.gate.internal.ReconciliationProcessor;
import io.actiongate.gate.internal.RouteProcessor;
import io.actiongate.gate.internal.Routing;
import io.actiongate.gate.internal.Sinks;
import io.actiongate.gate.internal.TimerProcessor;
import io.actiongate.policy.PolicyChanges;
import io.actiongate.serde.AvroSerde;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

/**
 * The gate: docs/contract.md section 4 as a Kafka Streams {@link Topology}. A pure factory; {@link GateStreams}
 * runs it. Every input is consumed as bytes, routed to the task that owns its key's murmur2 partition (a record
 * already there goes straight on; a misrouted one hops once through an internal topic), and decoded in one place
 * per topic (undecodable records become dead letters). Decisions are first claimed by their decision id. The
 * action-keyed inputs, the hop topics and the stores form one sub-topology; policy is a global store. The routing
 * skeleton (sources and hop topics) is built with the DSL, whose {@code repartition} is the public way to have
 * Kafka Streams create and size an internal topic; the gate's processors are added to it by name.
 * See DESIGN.md in this package.
 */
public final class GateTopology {

    public static final String PROPOSALS_SOURCE = "proposals-source";
    public static final String PROPOSALS_ROUTE = "proposals-route";
    /** Hop of misrouted proposals: internal topic {@code <application.id>-proposals-rerouted-repartition}. */
    public static final String PROPOSALS_HOP = "proposals-rerouted";
    public static final String PROPOSALS_DECODE = "proposals-decode";
    public static final String ADMIT = "gate-admit";
    public static final String DECISIONS_SOURCE = "decisions-source";
    public static final String DECISIONS_ROUTE = "decisions-route";
    /** Hop of decisions to the task owning their decision id. */
    public static final String DECISION_CLAIMS_HOP = "decision-claims";
    public static final String DECISION_CLAIMS_MERGE = "decision-claims-merge";
    public static final String CLAIM = "gate-claim-decision";
    /** Hop of claimed decisions to the task owning their action. */
    public static final String DECISIONS_CLAIMED_HOP = "decisions-claimed";
    public static final String DECISIONS_CLAIMED_DECODE = "decisions-claimed-decode";
    public static final String DECIDE = "gate-decide";
    public static final String OUTCOMES_SOURCE = "outcomes-source";
    public static final String OUTCOMES_ROUTE = "outcomes-route";
    public static final String OUTCOMES_HOP = "outcomes-rerouted";
    public static final String OUTCOMES_DECODE = "outcomes-decode";
    public static final String SETTLE = "gate-settle-outcome";
    public static final String RECONCILIATIONS_SOURCE = "reconciliations-source";
    public static final String RECONCILIATIONS_ROUTE = "reconciliations-route";
    public static final String RECONCILIATIONS_HOP = "reconciliations-rerouted";
    public static final String RECONCILIATIONS_DECODE = "reconciliations-decode";
    public static final String RECONCILE = "gate-reconcile";
    public static final String TIMERS = "gate-timers";
    public static final String POLICY_SOURCE = "policy-source";
    public static final String POLICY_UPDATE = "policy-update";

    /** Every hop, in topology order. */
    public static final java.util.List<String> HOPS = java.util.List.of(PROPOSALS_HOP, DECISION_CLAIMS_HOP,
            DECISIONS_CLAIMED_HOP, OUTCOMES_HOP, RECONCILIATIONS_HOP);

    private static final Serde<byte[]> BYTES = Serdes.ByteArray();

    private GateTopology() {
    }

    /**
     * The internal topic Kafka Streams creates for {@code hop} (one of {@link #HOPS}) under application id
     * {@code applicationId}; it has as many partitions as the input topics.
     */
    public static String hopTopic(String applicationId, String hop) {
        return applicationId + "-" + hop + "-repartition";
    }

    /** The first node of {@code hop}'s chain (where a route forwards a misrouted record). */
    static String hopEntry(String hop) {
        return hop + "-repartition-filter";
    }

    /** The node reading {@code hop}'s internal topic back. */
    static String hopExit(String hop) {
        return hop + "-repartition-source";
    }

    /**
     * The gate topology with the default credential scanner, classifying with {@code operations} (asked at
     * admission and before every reservation; {@link OperationClassifiers#NONE} refuses everything), for one
     * partition per input topic (every record is home). {@link GateStreams} builds it for the partition count of
     * the deployment's topics.
     */
    public static Topology build(GateConfig config, OperationClassifiers operations) {
        return build(config, operations, ScannerCredentialCheck.defaults());
    }

    /** The gate topology with the given classifiers and credential check, for one partition per input topic. */
    public static Topology build(GateConfig config, OperationClassifiers operations, CredentialCheck credentials) {
        return build(config, operations, credentials, ReceiptObserver.NONE);
    }

    /** The gate topology for one partition per input topic, with an observer of every published receipt. */
    public static Topology build(GateConfig config, OperationClassifiers operations, CredentialCheck credentials,
                                 ReceiptObserver receipts) {
        return build(config, operations, credentials, receipts, 1);
    }

    /**
     * The gate topology for input topics of {@code partitions} partitions each (see {@link InputPartitions}): a
     * record is processed by the task owning its key's murmur2 partition, wherever its producer put it.
     */
    public static Topology build(GateConfig config, OperationClassifiers operations, CredentialCheck credentials,
                                 ReceiptObserver receipts, int partitions) {
        return build(config, operations, credentials, receipts, partitions, AttachmentCheck.WITHOUT_STORAGE);
    }

    /** As above, with the admission check of attachments against object storage. */
    public static Topology build(GateConfig config, OperationClassifiers operations, CredentialCheck credentials,
                                 ReceiptObserver receipts, int partitions, AttachmentCheck attachments) {
        return build(config, operations, credentials, receipts, partitions, attachments,
                GroupCommits.of(config.commitWhenDrained()));
    }

    /**
     * As above, committing through {@code commits}: {@link GateStreams} passes the instance its consumers report
     * their polls to.
     */
    static Topology build(GateConfig config, OperationClassifiers operations, CredentialCheck credentials,
                          ReceiptObserver receipts, int partitions, AttachmentCheck attachments, GroupCommits commits) {
        Routing routing = new Routing(partitions);
        Set<String> hopTopics = HOPS.stream().map(h -> hopTopic(config.applicationId(), h))
                .collect(Collectors.toUnmodifiableSet());
        String prefix = config.topicPrefix();
        Deserializer<byte[]> bytes = Serdes.ByteArray().deserializer();
        StreamsBuilder dsl = new StreamsBuilder();

        // the routing skeleton: each input's source, its route and its hop topic
        routed(dsl, Topics.PROPOSALS, prefix, PROPOSALS_SOURCE, PROPOSALS_ROUTE, PROPOSALS_HOP, routing, commits,
                PROPOSALS_DECODE);
        routed(dsl, Topics.OUTCOMES, prefix, OUTCOMES_SOURCE, OUTCOMES_ROUTE, OUTCOMES_HOP, routing, commits,
                OUTCOMES_DECODE);
        routed(dsl, Topics.RECONCILIATIONS, prefix, RECONCILIATIONS_SOURCE, RECONCILIATIONS_ROUTE, RECONCILIATIONS_HOP,
                routing, commits, RECONCILIATIONS_DECODE);
        // a decision read from its topic is decoded once, by its route, which passes the decoded value on
        RawBytes raw = new RawBytes();
        KStream<Object, Object> decisions = dsl.stream(Topics.DECISIONS.name(prefix),
                Consumed.with(BYTES, BYTES).withName(DECISIONS_SOURCE))
                .process(() -> new DecisionRouteProcessor(avro(Topics.DECISIONS), routing, DECIDE,
                        DECISION_CLAIMS_MERGE, hopEntry(DECISION_CLAIMS_HOP), commits), Named.as(DECISIONS_ROUTE));
        KStream<Object, Object> toClaim = decisions.repartition(Repartitioned.<Object, Object>as(DECISION_CLAIMS_HOP)
                .withKeySerde(raw).withValueSerde(raw).withStreamPartitioner(Routing.objectPartitioner()));
        decisions.merge(toClaim, Named.as(DECISION_CLAIMS_MERGE))
                .process(() -> new DecisionClaimProcessor(config, avro(Topics.DECISIONS), routing, DECIDE,
                        hopEntry(DECISIONS_CLAIMED_HOP), hopTopics, commits), Named.as(CLAIM))
                .repartition(Repartitioned.<Object, Object>as(DECISIONS_CLAIMED_HOP).withKeySerde(raw)
                        .withValueSerde(raw).withStreamPartitioner(Routing.objectPartitioner()));
        Topology t = dsl.build();

        // one decoded policy snapshot per gate, invalidated by the global store's processor on every policy update
        PolicyChanges policy = PolicyChanges.snapshot();
        t.addGlobalStore(GateStores.policy(), POLICY_SOURCE, bytes, bytes, Topics.POLICY.name(prefix), POLICY_UPDATE,
                () -> new PolicyUpdateProcessor(policy));

        t.addProcessor(PROPOSALS_DECODE, DecodeProcessor.supplier(avro(Topics.PROPOSALS), ADMIT, hopTopics, commits),
                PROPOSALS_ROUTE, hopExit(PROPOSALS_HOP));
        t.addProcessor(ADMIT, (ProcessorSupplier<String, io.actiongate.gate.internal.Inbound<ActionProposal>, Object, Object>)
                () -> new ProposalProcessor(config, credentials, operations, attachments, policy), PROPOSALS_DECODE);
        t.addProcessor(TIMERS, () -> new TimerProcessor(config, operations, policy), PROPOSALS_DECODE);

        t.addProcessor(DECISIONS_CLAIMED_DECODE, DecodeProcessor.claimedSupplier(avro(Topics.DECISIONS), DECIDE,
                hopTopics, commits), hopExit(DECISIONS_CLAIMED_HOP));
        t.addProcessor(DECIDE, (ProcessorSupplier<String, io.actiongate.gate.internal.Inbound<Decision>, Object, Object>)
                () -> new DecisionProcessor(config, operations, policy), DECISIONS_ROUTE, CLAIM, DECISIONS_CLAIMED_DECODE);

        t.addProcessor(OUTCOMES_DECODE, DecodeProcessor.supplier(avro(Topics.OUTCOMES), SETTLE, hopTopics, commits),
                OUTCOMES_ROUTE, hopExit(OUTCOMES_HOP));
        t.addProcessor(SETTLE, (ProcessorSupplier<String, io.actiongate.gate.internal.Inbound<AttemptOutcome>, Object, Object>)
                () -> new OutcomeProcessor(config, policy), OUTCOMES_DECODE);

        t.addProcessor(RECONCILIATIONS_DECODE,
                DecodeProcessor.supplier(avro(Topics.RECONCILIATIONS), RECONCILE, hopTopics, commits),
                RECONCILIATIONS_ROUTE, hopExit(RECONCILIATIONS_HOP));
        t.addProcessor(RECONCILE, (ProcessorSupplier<String, io.actiongate.gate.internal.Inbound<Reconciliation>, Object, Object>)
                () -> new ReconciliationProcessor(config, operations, policy), RECONCILIATIONS_DECODE);

        String[] stateful = {ADMIT, DECIDE, SETTLE, RECONCILE, TIMERS};
        t.addStateStore(GateStores.actions(), stateful);
        t.addStateStore(GateStores.timers(), ADMIT, DECIDE, SETTLE, RECONCILE, TIMERS, CLAIM);
        t.addStateStore(GateStores.timerIndex(), stateful);
        t.addStateStore(GateStores.pending(), stateful);
        t.addStateStore(GateStores.decisionIds(), stateful);
        t.addStateStore(GateStores.decisionClaims(), ADMIT, DECIDE, SETTLE, RECONCILE, TIMERS, CLAIM);

        t.addProcessor(Sinks.RECEIPTS, () -> new io.actiongate.gate.internal.ReceiptObserverProcessor(receipts),
                ADMIT, DECIDE, SETTLE, RECONCILE, TIMERS);
        sink(t, Sinks.RECEIPTS_OUT, Topics.RECEIPTS, prefix, Sinks.RECEIPTS);
        sink(t, Sinks.ATTEMPTS, Topics.ATTEMPTS, prefix, ADMIT, DECIDE, TIMERS);
        sink(t, Sinks.UNKNOWN_OUTCOMES, Topics.UNKNOWN_OUTCOMES, prefix, SETTLE, TIMERS);
        sink(t, Sinks.CONFLICTS, Topics.CONFLICTS, prefix, ADMIT);
        sink(t, Sinks.DEAD_LETTERS, Topics.DEAD_LETTERS, prefix, PROPOSALS_DECODE, DECISIONS_ROUTE,
                DECISIONS_CLAIMED_DECODE, OUTCOMES_DECODE, RECONCILIATIONS_DECODE, CLAIM, ADMIT, DECIDE, SETTLE,
                RECONCILE);
        return t;
    }

    /** Source, route and hop of one action-keyed input; both the route and the hop feed {@code decode}. */
    private static void routed(StreamsBuilder dsl, TopicSpec<?, ?> topic, String prefix, String source, String route,
                               String hop, Routing routing, GroupCommits commits, String decode) {
        dsl.stream(topic.name(prefix), Consumed.with(BYTES, BYTES).withName(source))
                .process(() -> new RouteProcessor(routing, decode, hopEntry(hop), commits), Named.as(route))
                .repartition(hop(hop));
    }

    /** An internal topic created by Kafka Streams, partitioned by murmur2 of the record key. */
    private static Repartitioned<byte[], byte[]> hop(String name) {
        return Repartitioned.<byte[], byte[]>as(name).withKeySerde(BYTES).withValueSerde(BYTES)
                .withStreamPartitioner(Routing.partitioner());
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
