package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.TaskState;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * Tenant identity on a real broker, through a raw producer (bytes, any partition, as a librdkafka host would write): no
 * org or principal can occupy, answer for or read another's action.
 */
class TenantIdentityIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String OWNER = "acme";
    private static final String OTHER = "globex";

    @TempDir
    Path stateDir;

    private final KeyPair keys = GateDriver.newKeyPair();
    private String prefix;
    private GateStreams gate;
    private KafkaProducer<byte[], byte[]> raw;
    private KafkaConsumer<byte[], byte[]> outputs;
    private final List<Receipt> receipts = new ArrayList<>();
    private final List<IdentityConflict> conflicts = new ArrayList<>();
    private final List<DeadLetter> deadLetters = new ArrayList<>();

    @BeforeEach
    void setUp(TestInfo test) {
        prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 60_000).create(TopicsCreator.Plan.of(prefix, 2, (short) 1));
        GateConfig config = GateConfig.fromStrings(Map.of(
                GateConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
                GateConfig.APPLICATION_ID_CONFIG, TestNames.applicationId(test),
                GateConfig.STATE_DIR_CONFIG, stateDir.toString(),
                GateConfig.TOPIC_PREFIX_CONFIG, prefix,
                GateConfig.TRUSTED_KEYS_CONFIG,
                GateDriver.KEY_ID + "=" + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded())));
        Map<String, Object> props = KAFKA.clientProperties();
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        raw = new KafkaProducer<>(props);
        outputs = consumer();
        publishPolicy();
        gate = GateStreams.create(config, FakeClassifiers.webhook());
        gate.start();
        await().atMost(WAIT).until(() -> gate.streams().state() == KafkaStreams.State.RUNNING);
    }

    @AfterEach
    void tearDown() {
        if (gate != null) {
            gate.close(Duration.ofSeconds(30));
        }
        raw.close();
        outputs.close();
    }

    @Test
    void shouldConflictForAnotherOrgOrPrincipalUnderAHeldKeyAndLeaveTheOriginalUntouched() {
        ActionProposal original = propose(GateDriver.proposal("c-1").setOrgId(OWNER), 0);
        Receipt waiting = awaitReceipt("c-1", ReceiptStatus.WAITING_APPROVAL);

        // the same key and input from org B, then from another principal of org A, on the other partition
        ActionProposal fromOtherOrg = propose(GateDriver.proposal("c-1").setOrgId(OTHER), 1);
        ActionProposal fromOtherPrincipal = propose(GateDriver.proposal("c-1").setPrincipalId("user-2"), 1);
        await().atMost(WAIT).until(() -> {
            poll();
            return conflicts.size() >= 2;
        });
        assertThat(conflicts).extracting(IdentityConflict::getExistingDigest)
                .containsOnly(GateDriver.actionDigest(original));
        assertThat(conflicts).extracting(IdentityConflict::getOfferedDigest).containsExactly(
                GateDriver.actionDigest(fromOtherOrg), GateDriver.actionDigest(fromOtherPrincipal));

        // the original is untouched: its own approval moves it, and every receipt under the key is its own
        approve(original);
        awaitReceipt("c-1", ReceiptStatus.DISPATCHING);
        assertThat(receipts).filteredOn(r -> r.getToolCallId().equals("c-1")).allSatisfy(r -> {
            assertThat(r.getOrgId()).isEqualTo(OWNER);
            assertThat(r.getActionDigest()).isEqualTo(waiting.getActionDigest());
        });
        assertThat(receipts).filteredOn(r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL)
                .as("no offer was answered with the held receipt").hasSize(1);
    }

    @Test
    void shouldRefuseANonOwnerFirstWithoutOccupyingTheKey() {
        // org B, granted in its own org, proposes first under org A's task
        propose(GateDriver.proposal("c-2").setOrgId(OTHER), 1);
        await().atMost(WAIT).until(() -> {
            poll();
            return !deadLetters.isEmpty();
        });
        assertThat(deadLetters.get(0).getReasonCode()).isEqualTo(ReasonCode.TASK_NOT_OWNED.name());

        ActionProposal own = propose(GateDriver.proposal("c-2").setOrgId(OWNER), 0);
        Receipt receipt = awaitReceipt("c-2", ReceiptStatus.WAITING_APPROVAL);
        assertThat(receipt.getOrgId()).isEqualTo(OWNER);
        assertThat(receipt.getActionDigest()).isEqualTo(GateDriver.actionDigest(own));
        assertThat(receipts).as("no receipt of org B under A's key").extracting(Receipt::getOrgId)
                .containsOnly(OWNER);
        assertThat(conflicts).isEmpty();
    }

    private ActionProposal propose(ActionProposal.Builder b, int partition) {
        ActionProposal p = b.setProposedAt(Instant.now()).build();
        send(Topics.PROPOSALS.name(prefix), partition, GateDriver.key(p),
                Topics.PROPOSALS.valueSerde().serializer().serialize(null, p));
        return p;
    }

    private void approve(ActionProposal p) {
        Instant now = Instant.now();
        Decision d = DecisionSigning.sign(Decision.newBuilder().setDecisionId("d-" + UUID.randomUUID())
                .setTaskId(p.getTaskId()).setToolCallId(p.getToolCallId()).setType(DecisionType.APPROVE)
                .setActionDigest(GateDriver.actionDigest(p)).setApproverSubject("alice").setApproverOrg(OWNER)
                .setAuthMethod("webauthn").setIssuedAt(now).setExpiresAt(now.plus(Duration.ofHours(1)))
                .setKeyId(GateDriver.KEY_ID).setSignature(java.nio.ByteBuffer.allocate(0)).build(), keys.getPrivate());
        send(Topics.DECISIONS.name(prefix), null, GateDriver.key(p),
                Topics.DECISIONS.valueSerde().serializer().serialize(null, d));
    }

    private void publishPolicy() {
        policy("task:T-1", TaskState.newBuilder().setTaskId("T-1").setVersion(1).setStatus(LifecycleStatus.ACTIVE)
                .setOrgId(OWNER).build());
        for (String org : List.of(OWNER, OTHER)) {
            policy("epoch:" + org, AuthorizationEpoch.newBuilder().setOrgId(org).setEpoch(1).build());
            policy("grant:" + org + ":" + GateDriver.PROFILE, Grant.newBuilder().setOrgId(org)
                    .setProfileId(GateDriver.PROFILE).setTools(List.of(GateDriver.SEND))
                    .setMode(GrantMode.FULL_ACCESS).setChatEnabled(true).build());
            policy("integration:" + org + ":webhook", Integration.newBuilder().setOrgId(org).setProvider("webhook")
                    .setEnabled(true).setScopes(List.of()).build());
        }
        policy("tool:webhook:send_email", GateDriver.tool(GateDriver.SEND).setApproval(ApprovalMode.HUMAN).build());
    }

    private void policy(String key, Object body) {
        String kind = key.substring(0, key.indexOf(':'));
        send(Topics.POLICY.name(prefix), null, key, Topics.POLICY.valueSerde().serializer()
                .serialize(null, PolicyRecord.newBuilder().setKind(kind).setBody(body).build()));
    }

    private void send(String topic, Integer partition, String key, byte[] value) {
        raw.send(new ProducerRecord<>(topic, partition, new StringSerializer().serialize(topic, key), value));
        raw.flush();
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Map<String, Object> props = KAFKA.clientProperties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        consumer.subscribe(List.of(Topics.RECEIPTS.name(prefix), Topics.CONFLICTS.name(prefix),
                Topics.DEAD_LETTERS.name(prefix)));
        return consumer;
    }

    private void poll() {
        for (ConsumerRecord<byte[], byte[]> r : outputs.poll(Duration.ofMillis(200))) {
            if (r.topic().equals(Topics.RECEIPTS.name(prefix))) {
                receipts.add(Topics.RECEIPTS.valueSerde().deserializer().deserialize(r.topic(), r.value()));
            } else if (r.topic().equals(Topics.CONFLICTS.name(prefix))) {
                conflicts.add(Topics.CONFLICTS.valueSerde().deserializer().deserialize(r.topic(), r.value()));
            } else {
                deadLetters.add(Topics.DEAD_LETTERS.valueSerde().deserializer().deserialize(r.topic(), r.value()));
            }
        }
    }

    private Receipt awaitReceipt(String call, ReceiptStatus status) {
        await().atMost(WAIT).until(() -> {
            poll();
            return receipts.stream().anyMatch(r -> r.getToolCallId().equals(call) && r.getStatus() == status);
        });
        return receipts.stream().filter(r -> r.getToolCallId().equals(call) && r.getStatus() == status)
                .reduce((a, b) -> b).orElseThrow();
    }
}
