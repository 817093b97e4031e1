package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.function.IntPredicate;
import java.util.zip.CRC32;

import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.ResolvedBy;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.Verdict;
import io.actiongate.testing.GroupLag;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;
import io.actiongate.gate.internal.Routing;
import io.actiongate.key.ActionKey;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * docs/contract.md section 2, "Partitioning is the gate's job": the gate on a real broker with three partitions per
 * topic, fed by three kinds of producer at once. A Java producer (murmur2, the gate's own routing), one whose
 * partitioner is librdkafka's default ({@code consistent_random}: CRC32 of the key bytes modulo the partition
 * count, what a Python, Go or .NET tool host uses unless told otherwise), and one that writes to an explicit wrong
 * partition. Every key below is chosen so that the non-Java producers really misroute it. One gate serves the
 * class: each test has calls of its own, and asserts on them only.
 */
class PartitionRoutingIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final int PARTITIONS = 3;
    private static final Duration WAIT = Duration.ofSeconds(120);

    /** librdkafka's default partitioner for keyed records: CRC32 of the key bytes, modulo the partition count. */
    public static final class Crc32Partitioner implements Partitioner {
        static int partition(byte[] key, int partitions) {
            CRC32 crc = new CRC32();
            crc.update(key);
            return (int) (crc.getValue() % partitions);
        }

        @Override
        public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes,
                             Cluster cluster) {
            return partition(keyBytes, cluster.partitionCountForTopic(topic));
        }

        @Override
        public void close() {
            // nothing held
        }

        @Override
        public void configure(Map<String, ?> configs) {
            // nothing to configure
        }
    }

    /** How a record reaches the topic. */
    private enum Producer { MURMUR2, CRC32, WRONG_PARTITION }

    @TempDir
    static Path stateDir;

    private static final KeyPair keys = GateDriver.newKeyPair();
    private static String prefix;
    private static String applicationId;
    private static GateConfig config;
    private static GateStreams gate;
    private static KafkaProducer<String, byte[]> murmur2;
    private static KafkaProducer<String, byte[]> crc32;
    private static final List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
    private static KafkaConsumer<byte[], byte[]> receiptsConsumer;
    private static KafkaConsumer<byte[], byte[]> attemptsConsumer;
    private static KafkaConsumer<byte[], byte[]> conflictsConsumer;
    private static KafkaConsumer<byte[], byte[]> deadLettersConsumer;
    private static final List<Receipt> receipts = new ArrayList<>();
    private static final List<AttemptReservation> attempts = new ArrayList<>();
    private static final List<IdentityConflict> conflicts = new ArrayList<>();
    private static final List<DeadLetter> deadLetters = new ArrayList<>();

    @BeforeAll
    static void setUp(TestInfo test) {
        prefix = TestNames.topicPrefix(test);
        applicationId = TestNames.applicationId(test);
        new TopicsCreator(KAFKA.admin(), 60_000).create(TopicsCreator.Plan.of(prefix, PARTITIONS, (short) 1));
        config = GateConfig.fromStrings(Map.of(
                GateConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
                GateConfig.APPLICATION_ID_CONFIG, applicationId,
                GateConfig.STATE_DIR_CONFIG, stateDir.toString(),
                GateConfig.TOPIC_PREFIX_CONFIG, prefix,
                GateConfig.STREAMS_PREFIX + "commit.interval.ms", "100",
                GateConfig.TRUSTED_KEYS_CONFIG,
                GateDriver.KEY_ID + "=" + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded())));
        murmur2 = producer(null);
        crc32 = producer(Crc32Partitioner.class);
        receiptsConsumer = consumer(Topics.RECEIPTS.name(prefix));
        attemptsConsumer = consumer(Topics.ATTEMPTS.name(prefix));
        conflictsConsumer = consumer(Topics.CONFLICTS.name(prefix));
        deadLettersConsumer = consumer(Topics.DEAD_LETTERS.name(prefix));
        publishPolicy();
        gate = GateStreams.create(config, FakeClassifiers.webhook());
        gate.start();
        await().atMost(WAIT).until(() -> gate.streams().state() == KafkaStreams.State.RUNNING);
    }

    @AfterAll
    static void tearDown() {
        if (gate != null) {
            gate.close(Duration.ofSeconds(30));
        }
        murmur2.close();
        crc32.close();
        consumers.forEach(KafkaConsumer::close);
    }

    // ---- the tests ------------------------------------------------------------------------------------------

    @Test
    void shouldCreateTheHopTopicsWithThePartitionCountOfTheInputs() throws Exception {
        List<String> hops = GateTopology.HOPS.stream().map(h -> GateTopology.hopTopic(applicationId, h)).toList();
        Map<String, TopicDescription> described = KAFKA.admin().describeTopics(hops).allTopicNames().get();
        assertThat(described).hasSize(GateTopology.HOPS.size());
        assertThat(described.values()).allSatisfy(d -> assertThat(d.partitions()).hasSize(PARTITIONS));
        assertThat(GateStreams.properties(config)).isNotNull();
    }

    @Test
    void shouldRunOneEffectPerKeyAndDetectConflictsWhateverPartitionerEachProducerUses() {
        String same = call("same-", this::crcMisroutes);
        ActionProposal p = lookup(same, GateDriver.INPUT);
        send(Producer.CRC32, Topics.PROPOSALS, key(same), p);
        send(Producer.MURMUR2, Topics.PROPOSALS, key(same), p);
        send(Producer.WRONG_PARTITION, Topics.PROPOSALS, key(same), p);

        String conflicted = call("conflict-", this::crcMisroutes);
        send(Producer.CRC32, Topics.PROPOSALS, key(conflicted), lookup(conflicted, GateDriver.INPUT));
        send(Producer.MURMUR2, Topics.PROPOSALS, key(conflicted),
                lookup(conflicted, "{\"to\":\"ops@example.com\",\"body\":\"another input\"}"));

        awaitAttempt(same, 1);
        awaitAttempt(conflicted, 1);
        await().atMost(WAIT).until(() -> {
            poll(conflictsConsumer, Topics.CONFLICTS.valueSerde(), conflicts);
            return conflicts.stream().anyMatch(c -> c.getToolCallId().equals(conflicted));
        });
        quietly();
        assertThat(attemptsFor(same)).as("one action and one effect, three producers").hasSize(1);
        assertThat(attemptsFor(conflicted)).as("the conflicting input is not dispatched").hasSize(1);
        assertThat(conflicts).filteredOn(c -> c.getToolCallId().equals(conflicted)).hasSize(1);
        assertThat(conflicts).filteredOn(c -> c.getToolCallId().equals(same)).isEmpty();
    }

    @Test
    void shouldMeetApprovalsOutcomesAndReconciliationsWithTheirActionAndApplyRedeliveriesOnce() {
        // a Python tool host proposes, a Java approval UI approves, an executor reports on a wrong partition
        String c = call("meet-", this::crcMisroutes);
        ActionProposal p = send(Producer.CRC32, Topics.PROPOSALS, key(c), email(c));
        awaitReceipt(c, ReceiptStatus.WAITING_APPROVAL);
        Decision approval = signedApproval(p, "d-" + UUID.randomUUID());
        send(Producer.MURMUR2, Topics.DECISIONS, key(c), approval);
        awaitAttempt(c, 1);
        awaitReceipt(c, ReceiptStatus.DISPATCHING);
        AttemptOutcome unknown = outcome(p, OutcomeStatus.UNKNOWN);
        send(Producer.WRONG_PARTITION, Topics.OUTCOMES, key(c), unknown);
        awaitReceipt(c, ReceiptStatus.UNKNOWN);
        Reconciliation confirmed = reconciliation(p, Verdict.EFFECT_CONFIRMED);
        send(Producer.CRC32, Topics.RECONCILIATIONS, key(c), confirmed);
        Receipt succeeded = awaitReceipt(c, ReceiptStatus.SUCCEEDED);
        assertThat(succeeded.getResolvedBy()).isEqualTo(ResolvedBy.RECONCILER);

        // everything again, through every kind of producer: nothing changes twice
        for (Producer producer : Producer.values()) {
            send(producer, Topics.DECISIONS, key(c), approval);
            send(producer, Topics.OUTCOMES, key(c), unknown);
            send(producer, Topics.RECONCILIATIONS, key(c), confirmed);
            send(producer, Topics.RECONCILIATIONS, key(c), reconciliation(p, Verdict.NO_EFFECT));
        }
        quietly();
        assertThat(attemptsFor(c)).hasSize(1);
        assertThat(receiptsFor(c)).extracting(Receipt::getStatus).containsExactly(ReceiptStatus.WAITING_APPROVAL,
                ReceiptStatus.DISPATCHING, ReceiptStatus.UNKNOWN, ReceiptStatus.SUCCEEDED);
        assertThat(deadLetters).as("the outcome and reconciliation always met their action")
                .noneMatch(d -> d.getReasonCode().equals(ReasonCode.KEY_MISMATCH.name()));

        // a Java tool host proposes, a Python approval UI approves, a Python executor reports
        String d = call("ui-", this::crcMisroutes);
        ActionProposal q = send(Producer.MURMUR2, Topics.PROPOSALS, key(d), email(d));
        awaitReceipt(d, ReceiptStatus.WAITING_APPROVAL);
        send(Producer.CRC32, Topics.DECISIONS, key(d), signedApproval(q, "d-" + UUID.randomUUID()));
        awaitAttempt(d, 1);
        send(Producer.CRC32, Topics.OUTCOMES, key(d), outcome(q, OutcomeStatus.SUCCEEDED));
        awaitReceipt(d, ReceiptStatus.SUCCEEDED);
    }

    @Test
    void shouldRefuseADecisionIdReusedForAnActionOnAnotherPartition() {
        String first = call("first-", partition -> partition == 0);
        String second = call("second-", partition -> partition == 1);
        ActionProposal a = send(Producer.MURMUR2, Topics.PROPOSALS, key(first), email(first));
        ActionProposal b = send(Producer.MURMUR2, Topics.PROPOSALS, key(second), email(second));
        awaitReceipt(first, ReceiptStatus.WAITING_APPROVAL);
        awaitReceipt(second, ReceiptStatus.WAITING_APPROVAL);

        String id = "d-" + UUID.randomUUID();
        Decision approval = signedApproval(a, id);
        send(Producer.MURMUR2, Topics.DECISIONS, key(first), approval);
        awaitAttempt(first, 1);
        // a new, validly signed decision for the other action, reusing the id
        send(Producer.MURMUR2, Topics.DECISIONS, key(second), signedApproval(b, id));
        await().atMost(WAIT).until(() -> {
            poll(deadLettersConsumer, Topics.DEAD_LETTERS.valueSerde(), deadLetters);
            // the claim's refusal; a redelivered approval of another test is refused APPROVAL_REUSED too
            return deadLetters.stream().anyMatch(l -> l.getReasonCode().equals(ReasonCode.APPROVAL_REUSED.name())
                    && l.getReason().contains("for another action"));
        });
        send(Producer.CRC32, Topics.DECISIONS, key(first), approval); // and the first one redelivered
        quietly();
        assertThat(attemptsFor(second)).as("the reused id approves nothing").isEmpty();
        assertThat(receiptsFor(second)).extracting(Receipt::getStatus)
                .containsExactly(ReceiptStatus.WAITING_APPROVAL);
        assertThat(attemptsFor(first)).hasSize(1);

        send(Producer.WRONG_PARTITION, Topics.DECISIONS, key(second), signedApproval(b, "d-" + UUID.randomUUID()));
        awaitAttempt(second, 1); // a fresh id does
    }

    // ---- keys -----------------------------------------------------------------------------------------------

    private static String key(String call) {
        return ActionKey.format(GateDriver.TASK, call);
    }

    private static int home(String call) {
        return Routing.home(key(call), PARTITIONS);
    }

    /** Whether librdkafka's default partitioner puts {@code call}'s key elsewhere than its murmur2 home. */
    private boolean crcMisroutes(int home, String call) {
        return Crc32Partitioner.partition(key(call).getBytes(StandardCharsets.UTF_8), PARTITIONS) != home;
    }

    private interface CallFilter {
        boolean test(int home, String call);
    }

    private String call(String prefixOfCall, CallFilter wanted) {
        for (int i = 0; ; i++) {
            String c = prefixOfCall + i;
            if (wanted.test(home(c), c)) {
                return c;
            }
        }
    }

    private String call(String prefixOfCall, IntPredicate home) {
        return call(prefixOfCall, (h, c) -> home.test(h));
    }

    // ---- records --------------------------------------------------------------------------------------------

    private static ActionProposal email(String call) {
        return GateDriver.proposal(call).setProposedAt(Instant.now()).build();
    }

    private static ActionProposal lookup(String call, String input) {
        return GateDriver.lookup(call).setInputJson(input).setInputDigest(Digests.inputDigest(input))
                .setProposedAt(Instant.now()).build();
    }

    private Decision signedApproval(ActionProposal p, String id) {
        Instant now = Instant.now();
        return DecisionSigning.sign(Decision.newBuilder().setDecisionId(id).setTaskId(p.getTaskId())
                .setToolCallId(p.getToolCallId()).setType(DecisionType.APPROVE)
                .setActionDigest(GateDriver.actionDigest(p)).setApproverSubject("alice").setApproverOrg(GateDriver.ORG)
                .setAuthMethod("webauthn").setIssuedAt(now).setExpiresAt(now.plus(Duration.ofHours(1)))
                .setKeyId(GateDriver.KEY_ID).setSignature(ByteBuffer.allocate(0)).build(), keys.getPrivate());
    }

    private static AttemptOutcome outcome(ActionProposal p, OutcomeStatus status) {
        Instant now = Instant.now();
        boolean ok = status == OutcomeStatus.SUCCEEDED;
        return AttemptOutcome.newBuilder().setTaskId(p.getTaskId()).setToolCallId(p.getToolCallId()).setAttempt(1)
                .setStatus(status).setDispatched(true).setHttpStatus(ok ? 200 : null)
                .setProviderReceiptId(ok ? "prov-1" : null).setErrorCode(ok ? null : "TIMEOUT").setErrorDetail(null)
                .setRetryAt(null).setStartedAt(now).setFinishedAt(now).setExecutorId("exec-it").build();
    }

    private static Reconciliation reconciliation(ActionProposal p, Verdict verdict) {
        return Reconciliation.newBuilder().setTaskId(p.getTaskId()).setToolCallId(p.getToolCallId()).setAttempt(1)
                .setVerdict(verdict).setEvidence("lookup").setLookups(1)
                .setProviderReceiptId(verdict == Verdict.EFFECT_CONFIRMED ? "prov-9" : null)
                .setCheckedAt(Instant.now()).build();
    }

    private static void publishPolicy() {
        policy("epoch:acme", "epoch", AuthorizationEpoch.newBuilder().setOrgId("acme").setEpoch(1).build());
        policy("task:T-1", "task", TaskState.newBuilder().setTaskId("T-1").setVersion(1)
                .setStatus(LifecycleStatus.ACTIVE).setOrgId("acme").build());
        policy("grant:acme:chat-default", "grant", Grant.newBuilder().setOrgId("acme").setProfileId("chat-default")
                .setTools(List.of(GateDriver.SEND, GateDriver.LOOKUP)).setMode(GrantMode.FULL_ACCESS)
                .setChatEnabled(true).build());
        policy("integration:acme:webhook", "integration", Integration.newBuilder().setOrgId("acme")
                .setProvider("webhook").setEnabled(true).setScopes(List.of()).build());
        policy("tool:webhook:send_email", "tool", GateDriver.tool(GateDriver.SEND).setApproval(ApprovalMode.HUMAN)
                .build());
        policy("tool:webhook:lookup", "tool", GateDriver.tool(GateDriver.LOOKUP).setReadOnlyHint(true)
                .setApproval(ApprovalMode.NONE).build());
        murmur2.flush();
    }

    private static void policy(String key, String kind, Object body) {
        send(Producer.MURMUR2, Topics.POLICY, key, PolicyRecord.newBuilder().setKind(kind).setBody(body).build());
    }

    // ---- Kafka ----------------------------------------------------------------------------------------------

    private static KafkaProducer<String, byte[]> producer(Class<? extends Partitioner> partitioner) {
        Map<String, Object> props = KAFKA.clientProperties();
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        if (partitioner != null) {
            props.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, partitioner);
        }
        return new KafkaProducer<>(props);
    }

    private static <V> V send(Producer how, TopicSpec<String, V> topic, String key, V value) {
        String name = topic.name(prefix);
        byte[] bytes = topic.valueSerde().serializer().serialize(name, value);
        ProducerRecord<String, byte[]> record = switch (how) {
            case MURMUR2 -> new ProducerRecord<>(name, key, bytes);
            case CRC32 -> new ProducerRecord<>(name, key, bytes);
            case WRONG_PARTITION -> new ProducerRecord<>(name, (Routing.home(key, PARTITIONS) + 1) % PARTITIONS, key,
                    bytes);
        };
        KafkaProducer<String, byte[]> producer = how == Producer.CRC32 ? crc32 : murmur2;
        try {
            int partition = producer.send(record).get().partition();
            if (how != Producer.MURMUR2 && topic != Topics.POLICY) {
                assertThat(partition).as("%s put %s elsewhere than its home", how, key)
                        .isNotEqualTo(Routing.home(key, PARTITIONS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        return value;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String topic) {
        Map<String, Object> props = KAFKA.clientProperties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        consumer.subscribe(List.of(topic));
        consumers.add(consumer);
        return consumer;
    }

    private static <V> void poll(KafkaConsumer<byte[], byte[]> consumer,
                          org.apache.kafka.common.serialization.Serde<V> serde, List<V> into) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            into.add(serde.deserializer().deserialize(r.topic(), r.value()));
        }
    }

    private static void pollAll() {
        poll(receiptsConsumer, Topics.RECEIPTS.valueSerde(), receipts);
        poll(attemptsConsumer, Topics.ATTEMPTS.valueSerde(), attempts);
        poll(conflictsConsumer, Topics.CONFLICTS.valueSerde(), conflicts);
        poll(deadLettersConsumer, Topics.DEAD_LETTERS.valueSerde(), deadLetters);
    }

    /**
     * Waits until the gate has processed everything sent so far and committed what it wrote, then reads its outputs
     * to their end: any second effect of what was sent is read by now.
     */
    private void quietly() {
        GroupLag.awaitNone(KAFKA.admin(), applicationId, GateDriver.consumedTopics(prefix, applicationId), WAIT);
        await().atMost(WAIT).until(() -> {
            pollAll();
            return consumers.stream().allMatch(PartitionRoutingIT::atEnd);
        });
    }

    /** Whether {@code consumer} has read each of its partitions to the end its read_committed isolation allows. */
    private static boolean atEnd(KafkaConsumer<byte[], byte[]> consumer) {
        Set<TopicPartition> assigned = consumer.assignment();
        if (assigned.isEmpty()) {
            return false;
        }
        Map<TopicPartition, Long> ends = consumer.endOffsets(assigned);
        return assigned.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
    }

    private List<Receipt> receiptsFor(String call) {
        return receipts.stream().filter(r -> r.getToolCallId().equals(call)).toList();
    }

    private List<AttemptReservation> attemptsFor(String call) {
        return attempts.stream().filter(a -> a.getToolCallId().equals(call)).toList();
    }

    private Receipt awaitReceipt(String call, ReceiptStatus status) {
        await().atMost(WAIT).until(() -> {
            pollAll();
            return receiptsFor(call).stream().anyMatch(r -> r.getStatus() == status);
        });
        return receiptsFor(call).stream().filter(r -> r.getStatus() == status).reduce((x, y) -> y).orElseThrow();
    }

    private void awaitAttempt(String call, int attempt) {
        await().atMost(WAIT).until(() -> {
            pollAll();
            return attemptsFor(call).stream().anyMatch(a -> a.getAttempt() == attempt);
        });
    }
}
