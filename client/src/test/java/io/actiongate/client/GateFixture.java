package io.actiongate.client;

import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Validation;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.GateStreams;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.key.ActionKey;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * Test fixture: the real gate (Kafka Streams, exactly-once) on the embedded broker with a demo policy for org
 * {@code acme}, task {@code T-1}: tool {@code webhook:send_email} (an effect, approval HUMAN) granted to
 * {@code chat-default}, and {@code webhook:lookup} (a read). It stands in for the executor by publishing outcomes,
 * and for the approval page by signing decisions with a key the gate trusts.
 */
public final class GateFixture implements AutoCloseable {

    public static final String ORG = "acme";
    public static final String TASK = "T-1";
    public static final String PROFILE = "chat-default";
    public static final String PROVIDER = "webhook";
    public static final String SEND = "send_email";
    public static final String LOOKUP = "lookup";
    public static final String SCHEMA = "sha256:schema-v1";
    public static final String KEY_ID = "client-it-key";
    private static final Duration WAIT = Duration.ofSeconds(120);

    private final String prefix;
    private final KafkaBrokerExtension kafka;
    private final KeyPair keys;
    private final GateStreams gate;
    private final KafkaProducer<String, byte[]> producer;
    private final KafkaConsumer<String, byte[]> attemptsConsumer;
    private final List<AttemptReservation> attempts = new ArrayList<>();

    public GateFixture(KafkaBrokerExtension kafka, String prefix, String applicationId, Path stateDir) {
        this.kafka = kafka;
        this.prefix = prefix;
        this.keys = newKeyPair();
        new TopicsCreator(kafka.admin(), 60_000).create(TopicsCreator.Plan.of(prefix, 2, (short) 1));
        Map<String, Object> props = kafka.clientProperties();
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        producer = new KafkaProducer<>(props);
        attemptsConsumer = consumer(Topics.ATTEMPTS);
        publishDemoPolicy();
        GateConfig config = GateConfig.fromStrings(Map.of(
                GateConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                GateConfig.APPLICATION_ID_CONFIG, applicationId,
                GateConfig.STATE_DIR_CONFIG, stateDir.toString(),
                GateConfig.TOPIC_PREFIX_CONFIG, prefix,
                GateConfig.TRUSTED_KEYS_CONFIG,
                KEY_ID + "=" + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded())));
        gate = GateStreams.create(config, new WebhookClassifiers());
        gate.start();
        await().atMost(WAIT).until(() -> gate.streams().state() == KafkaStreams.State.RUNNING);
    }

    public String prefix() {
        return prefix;
    }

    public KeyPair keys() {
        return keys;
    }

    /** A client on this fixture's topics. */
    public ActionGateClient client() {
        return ActionGateClient.builder().bootstrapServers(kafka.bootstrapServers()).topicPrefix(prefix).build();
    }

    /** A request for {@code webhook:send_email} in task T-1 (no approval without a human). */
    public static ProposalRequest.Builder send(String call, String inputJson) {
        return ProposalRequest.builder().action(TASK, call).taskVersion(1).authorizationEpoch(1)
                .identity(ORG, "user-1").profile(PROFILE).tool(PROVIDER, SEND, SEND, SCHEMA).input(inputJson)
                .summary("Email ops that the disk is full");
    }

    /** Publishes a signed APPROVE of {@code actionDigest} for {@code task/call}. */
    public void approve(String task, String call, String actionDigest) {
        Instant now = Instant.now();
        Decision d = DecisionSigning.sign(Decision.newBuilder().setDecisionId("d-" + UUID.randomUUID())
                .setTaskId(task).setToolCallId(call).setType(DecisionType.APPROVE).setActionDigest(actionDigest)
                .setApproverSubject("alice").setApproverOrg(ORG).setAuthMethod("webauthn").setIssuedAt(now)
                .setExpiresAt(now.plus(Duration.ofHours(1))).setKeyId(KEY_ID).setSignature(ByteBuffer.allocate(0))
                .build(), keys.getPrivate());
        send(Topics.DECISIONS, ActionKey.format(task, call), d);
    }

    /** Waits for reservation {@code attempt} of the action and answers it SUCCEEDED, as an executor would. */
    public AttemptReservation succeed(String task, String call, int attempt) {
        AttemptReservation r = awaitAttempt(call, attempt);
        Instant now = Instant.now();
        send(Topics.OUTCOMES, ActionKey.format(task, call), AttemptOutcome.newBuilder().setTaskId(task).setToolCallId(call)
                .setAttempt(attempt).setStatus(OutcomeStatus.SUCCEEDED).setDispatched(true).setHttpStatus(200)
                .setProviderReceiptId("prov-" + call).setErrorCode(null).setErrorDetail(null).setRetryAt(null)
                .setStartedAt(now).setFinishedAt(now).setExecutorId("client-it").build());
        return r;
    }

    public AttemptReservation awaitAttempt(String call, int attempt) {
        await().atMost(WAIT).until(() -> {
            pollAttempts();
            return attempts.stream().anyMatch(a -> a.getToolCallId().equals(call) && a.getAttempt() == attempt);
        });
        return attempts.stream().filter(a -> a.getToolCallId().equals(call) && a.getAttempt() == attempt)
                .findFirst().orElseThrow();
    }

    /** Every reservation seen so far for {@code call} (polls once more). */
    public List<AttemptReservation> attempts(String call) {
        pollAttempts();
        return attempts.stream().filter(a -> a.getToolCallId().equals(call)).toList();
    }

    private void pollAttempts() {
        for (ConsumerRecord<String, byte[]> r : attemptsConsumer.poll(Duration.ofMillis(200))) {
            attempts.add(Topics.ATTEMPTS.valueSerde().deserializer().deserialize(r.topic(), r.value()));
        }
    }

    /** Publishes a policy record (e.g. a {@code ToolDescriptor}). */
    /** Publishes {@code receipt} on {@code receipts} as if the gate had (to test what a client believes). */
    public void publishReceipt(Receipt receipt) {
        send(Topics.RECEIPTS, ActionKey.format(receipt.getTaskId(), receipt.getToolCallId()), receipt);
    }

    /** A WAITING_APPROVAL receipt of {@code send_email} under {@code actionKey} for org {@code org}. */
    public static Receipt receipt(String actionKey, String org, String inputDigest, String actionDigest) {
        ActionKey key = ActionKey.parse(actionKey);
        return Receipt.newBuilder().setTaskId(key.taskId()).setToolCallId(key.toolCallId())
                .setStatus(ReceiptStatus.WAITING_APPROVAL).setReasonCode(null).setReason(null).setOrgId(org)
                .setToolName(SEND).setProvider(PROVIDER).setOperation(SEND).setInputDigest(inputDigest)
                .setActionDigest(actionDigest).setDecisionId(null).setAttempts(List.of()).setProviderReceiptId(null)
                .setResolvedBy(null).setUpdatedAt(Instant.now()).build();
    }

    public void policy(String key, String kind, Object body) {
        send(Topics.POLICY, key, PolicyRecord.newBuilder().setKind(kind).setBody(body).build());
    }

    public static ToolDescriptor.Builder tool(String name, ApprovalMode approval, Boolean readOnly) {
        return ToolDescriptor.newBuilder().setProvider(PROVIDER).setToolName(name).setOperation(name)
                .setSchemaHash(SCHEMA).setReadOnlyHint(readOnly).setDestructiveHint(null).setIdempotentHint(null)
                .setOpenWorldHint(null).setApproval(approval).setMaxInputBytes(4096).setEnabled(true);
    }

    private void publishDemoPolicy() {
        policy("epoch:" + ORG, "epoch", AuthorizationEpoch.newBuilder().setOrgId(ORG).setEpoch(1).build());
        policy("task:" + TASK, "task", TaskState.newBuilder().setTaskId(TASK).setVersion(1)
                .setStatus(LifecycleStatus.ACTIVE).setOrgId(ORG).build());
        policy("grant:" + ORG + ":" + PROFILE, "grant", Grant.newBuilder().setOrgId(ORG).setProfileId(PROFILE)
                .setTools(List.of(SEND, LOOKUP)).setMode(GrantMode.FULL_ACCESS).setChatEnabled(true).build());
        policy("integration:" + ORG + ":" + PROVIDER, "integration", Integration.newBuilder().setOrgId(ORG)
                .setProvider(PROVIDER).setEnabled(true).setScopes(List.of()).build());
        policy("tool:" + PROVIDER + ":" + SEND, "tool", tool(SEND, ApprovalMode.HUMAN, false).build());
        policy("tool:" + PROVIDER + ":" + LOOKUP, "tool", tool(LOOKUP, ApprovalMode.NONE, true).build());
    }

    private <V> void send(TopicSpec<String, V> topic, String key, V value) {
        producer.send(new ProducerRecord<>(topic.name(prefix), key,
                topic.valueSerde().serializer().serialize(topic.name(prefix), value)));
        producer.flush();
    }

    private KafkaConsumer<String, byte[]> consumer(TopicSpec<String, ?> topic) {
        Map<String, Object> props = kafka.clientProperties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "fixture-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props);
        consumer.subscribe(List.of(topic.name(prefix)));
        return consumer;
    }

    private static KeyPair newKeyPair() {
        try {
            return KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        gate.close(Duration.ofSeconds(30));
        producer.close();
        attemptsConsumer.close();
    }

    /** As a webhook connector configured with send_email (an effect) and lookup (a read) would classify. */
    private static final class WebhookClassifiers implements OperationClassifiers {
        @Override
        public Optional<Classification> classify(String provider, String operation, String inputJson) {
            if (!PROVIDER.equals(provider)) {
                return Optional.empty();
            }
            return Optional.of(switch (operation) {
                case SEND -> Classification.effect("configured in operations");
                case LOOKUP -> Classification.read("configured in read-operations");
                default -> Classification.unsupported("not configured");
            });
        }

        @Override
        public Optional<Validation> validate(String provider, String operation, String inputJson) {
            return PROVIDER.equals(provider) ? Optional.of(Validation.ok()) : Optional.empty();
        }

        @Override
        public boolean classifiesPerInput(String provider) {
            return false;
        }
    }
}
