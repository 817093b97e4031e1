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
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
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
import io.actiongate.avro.ResolvedBy;
import io.actiongate.avro.TaskState;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/** The gate on a real (embedded KRaft) broker with exactly-once v2 and RocksDB stores. */
class GateStreamsIT {

    /**
     * A stream thread that dies does not leave its group: its replacement waits for the dead member's session to
     * expire before it gets the partitions (45 s at Kafka's default), so the tests run with a 2 s session, which
     * the extension's brokers allow. The restart test sets Kafka's default back: a gate that closes leaves its group
     * (gate.close.leave.group).
     */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path stateDir;

    private final KeyPair keys = GateDriver.newKeyPair();
    private final List<GateStreams> running = new ArrayList<>();
    private String prefix;
    private final Map<String, String> settings = new java.util.HashMap<>();
    private GateConfig config;
    private KafkaProducer<String, byte[]> producer;
    private KafkaConsumer<String, byte[]> receiptsConsumer;
    private KafkaConsumer<String, byte[]> attemptsConsumer;
    private final List<Receipt> receipts = new ArrayList<>();
    private final List<AttemptReservation> attempts = new ArrayList<>();

    @BeforeEach
    void setUp(TestInfo test) {
        prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 60_000).create(TopicsCreator.Plan.of(prefix, 2, (short) 1));
        settings.put(GateConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        settings.put(GateConfig.APPLICATION_ID_CONFIG, TestNames.applicationId(test));
        settings.put(GateConfig.STATE_DIR_CONFIG, stateDir.toString());
        settings.put(GateConfig.TOPIC_PREFIX_CONFIG, prefix);
        settings.put(GateConfig.STREAMS_PREFIX + "session.timeout.ms", "2000");
        settings.put(GateConfig.STREAMS_PREFIX + "heartbeat.interval.ms", "500");
        settings.put(GateConfig.TRUSTED_KEYS_CONFIG,
                GateDriver.KEY_ID + "=" + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded()));
        config = GateConfig.fromStrings(settings);
        Map<String, Object> props = KAFKA.clientProperties();
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        producer = new KafkaProducer<>(props);
        receiptsConsumer = consumer(Topics.RECEIPTS);
        attemptsConsumer = consumer(Topics.ATTEMPTS);
        publishDemoPolicy();
    }

    @AfterEach
    void tearDown() {
        running.forEach(g -> g.close(Duration.ofSeconds(30)));
        producer.close();
        receiptsConsumer.close();
        attemptsConsumer.close();
    }

    @Test
    void shouldApproveReserveAndSettleAnActionEndToEnd() {
        start();
        ActionProposal p = propose("c-1");
        awaitReceipt("c-1", ReceiptStatus.WAITING_APPROVAL);
        approve(p);
        AttemptReservation reservation = awaitAttempt("c-1", 1);
        assertThat(reservation.getInputJson()).isEqualTo(GateDriver.INPUT);
        awaitReceipt("c-1", ReceiptStatus.DISPATCHING);
        Instant now = Instant.now();
        send(Topics.OUTCOMES, "T-1/c-1", AttemptOutcome.newBuilder().setTaskId("T-1").setToolCallId("c-1")
                .setAttempt(1).setStatus(OutcomeStatus.SUCCEEDED).setDispatched(true).setHttpStatus(200)
                .setProviderReceiptId("prov-1").setErrorCode(null).setErrorDetail(null).setRetryAt(null)
                .setStartedAt(now).setFinishedAt(now).setExecutorId("exec-it").build());
        Receipt done = awaitReceipt("c-1", ReceiptStatus.SUCCEEDED);
        assertThat(done.getResolvedBy()).isEqualTo(ResolvedBy.GATE);
        assertThat(done.getAttempts()).hasSize(1);
        assertThat(running.get(0).localReceipt("T-1/c-1")).hasValueSatisfying(
                r -> assertThat(r.getStatus()).isEqualTo(ReceiptStatus.SUCCEEDED));
    }

    @Test
    void shouldCommitAsSoonAsItsInputIsDrainedNotAtTheCommitInterval() {
        // with a ten-minute interval only the group commit can make anything readable within the bounds below
        settings.put(GateConfig.STREAMS_PREFIX + "commit.interval.ms", "600000");
        settings.put(GateConfig.STREAMS_PREFIX + "producer.transaction.timeout.ms", "900000");
        config = GateConfig.fromStrings(settings);
        start();
        Duration bound = Duration.ofSeconds(30);
        ActionProposal home = propose("c-home");
        // a record on the partition that is not its key's home crosses the gate's internal hop: two commits
        ActionProposal away = GateDriver.proposal("c-away").setProposedAt(Instant.now()).build();
        int awayPartition = (io.actiongate.key.Partitioning.home(
                GateDriver.key(away).getBytes(java.nio.charset.StandardCharsets.UTF_8), 2) + 1) % 2;
        producer.send(new ProducerRecord<>(Topics.PROPOSALS.name(prefix), awayPartition, GateDriver.key(away),
                Topics.PROPOSALS.valueSerde().serializer().serialize(Topics.PROPOSALS.name(prefix), away)));
        producer.flush();
        awaitReceipt("c-home", ReceiptStatus.WAITING_APPROVAL, bound);
        awaitReceipt("c-away", ReceiptStatus.WAITING_APPROVAL, bound);

        approve(home);
        awaitAttempt("c-home", 1);
        Instant now = Instant.now();
        send(Topics.OUTCOMES, "T-1/c-home", AttemptOutcome.newBuilder().setTaskId("T-1").setToolCallId("c-home")
                .setAttempt(1).setStatus(OutcomeStatus.SUCCEEDED).setDispatched(true).setHttpStatus(200)
                .setProviderReceiptId("prov-1").setErrorCode(null).setErrorDetail(null).setRetryAt(null)
                .setStartedAt(now).setFinishedAt(now).setExecutorId("exec-it").build());
        awaitReceipt("c-home", ReceiptStatus.SUCCEEDED, bound);
    }

    @Test
    void shouldCommitNoTransactionWhileNothingHappensButCommitWhatComesNext() throws InterruptedException {
        // a tick every 100 ms: Kafka Streams commits after each punctuation, written or not
        GateStreams gate = startWithTimersEvery("100ms");
        propose("c-1");
        awaitReceipt("c-1", ReceiptStatus.WAITING_APPROVAL); // offsets to commit from now on: the proposal's
        Thread.sleep(500); // the commit that made the receipt readable has returned

        double before = producerCommitNanos(gate);
        Thread.sleep(3_000); // 30 ticks of each punctuator
        assertThat(producerCommitNanos(gate)).as("time spent committing while idle").isEqualTo(before);

        propose("c-2");
        awaitReceipt("c-2", ReceiptStatus.WAITING_APPROVAL, Duration.ofSeconds(30));
        assertThat(producerCommitNanos(gate)).isGreaterThan(before);
    }

    @Test
    void shouldPollLessWhileNothingHappensAndAnswerTheFirstProposalAfterThatAtOnce() throws InterruptedException {
        // timers every 20 s: an idle stream thread's poll may wait 5 s (GateStreams.MAX_IDLE_POLL)
        GateStreams gate = startWithTimersEvery("20s");
        propose("c-1");
        awaitReceipt("c-1", ReceiptStatus.WAITING_APPROVAL);
        Thread.sleep(1_500); // nothing for more than a second: the thread is idle

        double before = threadPolls(gate);
        Thread.sleep(3_000); // 30 polls at poll.ms 100
        assertThat(threadPolls(gate) - before).as("polls in 3 s while idle").isLessThanOrEqualTo(3);

        // the poll under way waits up to 5 s, but returns as soon as the proposal arrives
        long start = System.nanoTime();
        propose("c-2");
        awaitReceipt("c-2", ReceiptStatus.WAITING_APPROVAL, Duration.ofSeconds(30));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2_500));
    }

    /** A gate whose timer punctuator and cancellation sweep both tick every {@code interval}. */
    private GateStreams startWithTimersEvery(String interval) {
        settings.put(GateConfig.PUNCTUATE_INTERVAL_CONFIG, interval);
        settings.put(GateConfig.CANCEL_SWEEP_INTERVAL_CONFIG, interval);
        config = GateConfig.fromStrings(settings);
        return start();
    }

    /** How many times the gate's stream threads polled their consumer. */
    private static double threadPolls(GateStreams gate) {
        return metricSum(gate, "stream-thread-metrics", "poll-total");
    }

    /** The total time the gate's producers spent in {@code commitTransaction}: it grows with every commit sent. */
    private static double producerCommitNanos(GateStreams gate) {
        return metricSum(gate, "producer-metrics", "txn-commit-time-ns-total");
    }

    private static double metricSum(GateStreams gate, String group, String name) {
        return gate.streams().metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals(group))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    @Test
    void shouldKeepAWaitingActionAcrossARestartWithTheSameStateDirectoryAndApplicationIdAndResumeAtOnce() {
        // Kafka's default session timeout: the stopped gate's partitions come back before it expires only because
        // the gate left its group when it closed (gate.close.leave.group)
        settings.put(GateConfig.STREAMS_PREFIX + "session.timeout.ms", "45000");
        settings.put(GateConfig.STREAMS_PREFIX + "heartbeat.interval.ms", "3000");
        config = GateConfig.fromStrings(settings);
        GateStreams first = start();
        ActionProposal p = propose("c-1");
        awaitReceipt("c-1", ReceiptStatus.WAITING_APPROVAL);
        first.close(Duration.ofSeconds(30));
        running.remove(first);

        long restarted = System.nanoTime();
        start();
        approve(p);
        awaitAttempt("c-1", 1);
        assertThat(Duration.ofNanos(System.nanoTime() - restarted)).as("from the restart to the reservation")
                .isLessThan(Duration.ofSeconds(30));
        awaitReceipt("c-1", ReceiptStatus.DISPATCHING);
        assertThat(receipts).filteredOn(r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL).hasSize(1);
    }

    @Test
    void shouldReplaceTheStreamThreadOnAFailureNotAboutARecordAndLoseNothing() {
        AtomicInteger calls = new AtomicInteger();
        GateStreams gate = GateStreams.create(config, FakeClassifiers.webhook(), (input, summary) -> {
            if (calls.incrementAndGet() == 1) {
                throw new ProcessorStateException("simulated store failure");
            }
            return Optional.empty();
        });
        List<KafkaStreams.State> states = new java.util.concurrent.CopyOnWriteArrayList<>();
        gate.streams().setStateListener((next, old) -> states.add(next));
        running.add(gate);
        gate.start();
        await().atMost(WAIT).until(() -> gate.streams().state() == KafkaStreams.State.RUNNING);

        propose("c-1");
        awaitReceipt("c-1", ReceiptStatus.WAITING_APPROVAL);
        assertThat(calls.get()).as("the record was processed again by the replacement thread").isEqualTo(2);
        await().atMost(WAIT).until(() -> gate.streams().state() == KafkaStreams.State.RUNNING);
        assertThat(states).doesNotContain(KafkaStreams.State.ERROR, KafkaStreams.State.PENDING_ERROR);
        assertThat(gate.streams().metadataForLocalThreads()).hasSize(1);
        propose("c-2");
        awaitReceipt("c-2", ReceiptStatus.WAITING_APPROVAL);
        assertThat(receipts).filteredOn(r -> r.getToolCallId().equals("c-1")).hasSize(1);
    }

    private GateStreams start() {
        GateStreams gate = GateStreams.create(config, FakeClassifiers.webhook());
        running.add(gate);
        gate.start();
        await().atMost(WAIT).until(() -> gate.streams().state() == KafkaStreams.State.RUNNING);
        return gate;
    }

    private ActionProposal propose(String call) {
        ActionProposal p = GateDriver.proposal(call).setProposedAt(Instant.now()).build();
        send(Topics.PROPOSALS, GateDriver.key(p), p);
        return p;
    }

    private void approve(ActionProposal p) {
        Instant now = Instant.now();
        Decision d = DecisionSigning.sign(Decision.newBuilder().setDecisionId("d-" + UUID.randomUUID())
                .setTaskId(p.getTaskId()).setToolCallId(p.getToolCallId()).setType(DecisionType.APPROVE)
                .setActionDigest(GateDriver.actionDigest(p)).setApproverSubject("alice").setApproverOrg(GateDriver.ORG)
                .setAuthMethod("webauthn").setIssuedAt(now).setExpiresAt(now.plus(Duration.ofHours(1)))
                .setKeyId(GateDriver.KEY_ID).setSignature(java.nio.ByteBuffer.allocate(0)).build(), keys.getPrivate());
        send(Topics.DECISIONS, GateDriver.key(p), d);
    }

    private void publishDemoPolicy() {
        policy("epoch:acme", "epoch", AuthorizationEpoch.newBuilder().setOrgId("acme").setEpoch(1).build());
        policy("task:T-1", "task", TaskState.newBuilder().setTaskId("T-1").setVersion(1)
                .setStatus(LifecycleStatus.ACTIVE).setOrgId("acme").build());
        policy("grant:acme:chat-default", "grant", Grant.newBuilder().setOrgId("acme").setProfileId("chat-default")
                .setTools(List.of(GateDriver.SEND)).setMode(GrantMode.FULL_ACCESS).setChatEnabled(true).build());
        policy("integration:acme:webhook", "integration", Integration.newBuilder().setOrgId("acme")
                .setProvider("webhook").setEnabled(true).setScopes(List.of()).build());
        policy("tool:webhook:send_email", "tool", GateDriver.tool(GateDriver.SEND).setApproval(ApprovalMode.HUMAN)
                .build());
        producer.flush();
    }

    private void policy(String key, String kind, Object body) {
        send(Topics.POLICY, key, PolicyRecord.newBuilder().setKind(kind).setBody(body).build());
    }

    private <V> void send(TopicSpec<String, V> topic, String key, V value) {
        producer.send(new ProducerRecord<>(topic.name(prefix), key,
                topic.valueSerde().serializer().serialize(topic.name(prefix), value)));
        producer.flush();
    }

    private KafkaConsumer<String, byte[]> consumer(TopicSpec<String, ?> topic) {
        Map<String, Object> props = KAFKA.clientProperties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.ByteArrayDeserializer.class);
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props);
        consumer.subscribe(List.of(topic.name(prefix)));
        return consumer;
    }

    private Receipt awaitReceipt(String call, ReceiptStatus status) {
        return awaitReceipt(call, status, WAIT);
    }

    private Receipt awaitReceipt(String call, ReceiptStatus status, Duration within) {
        await().atMost(within).until(() -> {
            poll(receiptsConsumer, Topics.RECEIPTS, receipts);
            return receipts.stream().anyMatch(r -> r.getToolCallId().equals(call) && r.getStatus() == status);
        });
        return receipts.stream().filter(r -> r.getToolCallId().equals(call) && r.getStatus() == status)
                .reduce((a, b) -> b).orElseThrow();
    }

    private AttemptReservation awaitAttempt(String call, int attempt) {
        await().atMost(WAIT).until(() -> {
            poll(attemptsConsumer, Topics.ATTEMPTS, attempts);
            return attempts.stream().anyMatch(a -> a.getToolCallId().equals(call) && a.getAttempt() == attempt);
        });
        return attempts.stream().filter(a -> a.getToolCallId().equals(call) && a.getAttempt() == attempt)
                .findFirst().orElseThrow();
    }

    private <V> void poll(KafkaConsumer<String, byte[]> consumer, TopicSpec<String, V> topic, List<V> into) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            into.add(topic.valueSerde().deserializer().deserialize(r.topic(), r.value()));
        }
    }
}
