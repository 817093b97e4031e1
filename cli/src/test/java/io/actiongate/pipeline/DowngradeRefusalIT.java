package io.actiongate.pipeline;

import static io.actiongate.executor.ItSupport.createTopics;
import static io.actiongate.executor.ItSupport.produce;
import static io.actiongate.executor.ItSupport.readUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.digest.Digests;
import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSetup;
import io.actiongate.serde.Release;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.topics.Topics;

/**
 * A downgrade attempt, against a real broker: this release's roles meet what a newer release
 * wrote, a reservation of a later schema version and a gate state of a later layout, and stop with one line naming
 * the version and the release that wrote it, having changed nothing: no dispatch, no outcome, no offset committed,
 * no receipt, no record written to the changelog. It is the previous release against the current release's data,
 * one release later: the release before this one refuses nothing, and no format changed since it.
 */
class DowngradeRefusalIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final String ORG = "acme";
    private static final String TASK = "T-1";
    private static final String TOOL = "send_email";
    private static final String SCHEMA = "sha256:schema-v1";
    private static final String NEWER = "actiongate 9.1.0";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path stateDir;

    private SandboxWebhookProvider sandbox;
    private String prefix;
    private String applicationId;
    private ActiongateNode node;

    @BeforeEach
    void start(TestInfo test) {
        AvroSetup.install();
        sandbox = SandboxWebhookProvider.start();
        prefix = TestNames.topicPrefix(test);
        applicationId = TestNames.applicationId(test);
        createTopics(KAFKA.admin(), prefix, 3);
    }

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
        sandbox.close();
    }

    private Map<String, String> config() {
        Map<String, String> c = new HashMap<>();
        c.put("bootstrap.servers", KAFKA.bootstrapServers());
        c.put("topic.prefix", prefix);
        c.put("application.id", applicationId);
        c.put("executor.group.id", applicationId + "-executor");
        c.put("state.dir", stateDir.toString());
        c.put("http.port", "0");
        c.put("http.bind.address", "127.0.0.1");
        c.put("node.shutdown.timeout.ms", "5000");
        c.put("gate.punctuate.interval", "200ms");
        c.put("gate.streams.commit.interval.ms", "100");
        c.put("executor.poll.timeout", "100");
        c.put("connectors.webhook.base-url", sandbox.baseUri().toString());
        c.put("connectors.webhook.operations", TOOL);
        return c;
    }

    /** The role's failure once it stopped on its own (the line run exits with), within {@link #WAIT}. */
    private String awaitStop() {
        AtomicReference<String> line = new AtomicReference<>();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            Optional<String> failure = node.failure();
            failure.ifPresent(line::set);
            return failure.isPresent();
        });
        return line.get();
    }

    private Map<TopicPartition, Long> endOffsets(String... topics) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (String topic : topics) {
            KAFKA.admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()
                    .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
        }
        return KAFKA.admin().listOffsets(latest).all().get().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    private void send(String topic, int partition, String key, byte[] value, String formatHeader) throws Exception {
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props, new StringSerializer(),
                new ByteArraySerializer())) {
            ProducerRecord<String, byte[]> r = new ProducerRecord<>(topic, partition, key, value);
            if (formatHeader != null) {
                r.headers().add(AvroSerde.FORMAT_HEADER, formatHeader.getBytes(StandardCharsets.UTF_8));
            }
            producer.send(r).get();
        }
    }

    @Test
    void shouldStopTheExecutorOnAReservationANewerGateWroteWithoutDispatchingOrCommittingIt() throws Exception {
        String key = ActionKey.format(TASK, "c-1");
        AttemptReservation reservation = AttemptReservation.newBuilder().setTaskId(TASK).setToolCallId("c-1")
                .setAttempt(1).setIdempotencyKey("idem-c-1").setOrgId(ORG).setProvider("webhook").setOperation(TOOL)
                .setToolName(TOOL).setInputJson("{\"to\":\"ops@example.com\"}").setAttachments(List.of())
                .setActionDigest("sha256:" + "3".repeat(64)).setToolSchemaHash(SCHEMA).setReservedAt(Instant.now())
                .setLeaseExpiresAt(Instant.now().plusSeconds(600)).setDecisionId(null).setApprovedBy(null)
                .setSummary("s").build();
        byte[] newer = Topics.ATTEMPTS.valueSerde().serializer().serialize(null, reservation);
        for (int i = 2; i < 10; i++) {
            newer[i] ^= 0x5A; // the fingerprint of a schema version a newer gate writes
        }
        int partition = Partitioning.home(key, 3);
        send(Topics.ATTEMPTS.name(prefix), partition, key, newer, "AttemptReservation v3; " + NEWER);

        node = ActiongateNode.start(config(), Role.parse("executor"));
        String line = awaitStop();

        assertThat(line).startsWith(Release.current() + " stops: " + Topics.ATTEMPTS.name(prefix) + "-" + partition
                + "@0 holds AttemptReservation v3 (fingerprint ")
                .contains("written by " + NEWER + ", which this release does not read (it reads AttemptReservation "
                        + "v1 to v2); nothing was changed")
                .doesNotContain("\n");
        assertThat(sandbox.totalRequests()).as("nothing dispatched").isZero();
        assertThat(KAFKA.admin().listConsumerGroupOffsets(applicationId + "-executor").partitionsToOffsetAndMetadata()
                .get()).as("nothing committed: the release that reads it dispatches it").isEmpty();
        assertThat(endOffsets(Topics.OUTCOMES.name(prefix)).values()).as("no outcome").containsOnly(0L);
    }

    @Test
    void shouldStopTheGateOnAnActionStateANewerGateWroteAndLeaveTheDataAsItWas() throws Exception {
        publishPolicy();
        String key = ActionKey.format(TASK, "c-2");
        node = ActiongateNode.start(config(), Role.parse("gate"));
        produce(KAFKA.bootstrapServers(), Topics.PROPOSALS.name(prefix), Topics.PROPOSALS, Map.of(key, proposal()));
        assertThat(readUntil(KAFKA.bootstrapServers(), Topics.RECEIPTS.name(prefix), Topics.RECEIPTS,
                receipts -> receipts.stream().anyMatch(r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL), WAIT))
                .extracting(Receipt::getStatus).contains(ReceiptStatus.WAITING_APPROVAL);
        node.close();
        node = null;

        // a newer gate moved the action on and stored it in a layout after this release's
        String changelog = applicationId + "-gate-actions-changelog";
        int partition = Partitioning.home(key, 3);
        byte[] newer = newerActionState();
        send(changelog, partition, key, newer, null);
        String[] watched = {changelog, Topics.RECEIPTS.name(prefix), Topics.ATTEMPTS.name(prefix),
                Topics.DEAD_LETTERS.name(prefix), Topics.UNKNOWN_OUTCOMES.name(prefix)};
        Map<TopicPartition, Long> before = endOffsets(watched);
        Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed = KAFKA.admin()
                .listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata().get();
        // the instance restores its store from the changelog, as one on a new host would
        deleteTree(stateDir);

        node = ActiongateNode.start(config(), Role.parse("gate"));
        String line = awaitStop();

        assertThat(line).startsWith(Release.current() + " stops: " + changelog + " holds ActionState in the layout "
                + "of fingerprint 0102030405060708 written by " + NEWER + ", which this release does not read (it "
                + "reads ActionState layouts 1 (JSON) and 2); nothing was changed").doesNotContain("\n");
        node.close();
        node = null;
        assertThat(endOffsets(watched)).as("no record written, none rewritten").isEqualTo(before);
        assertThat(KAFKA.admin().listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata().get())
                .as("no input offset moved").isEqualTo(committed);
    }

    /** ActionState in a layout after 2: another single-object fingerprint, the writing release first. */
    private static byte[] newerActionState() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {(byte) 0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8});
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        encoder.writeString(NEWER);
        encoder.writeString("T-1");
        encoder.flush();
        return out.toByteArray();
    }

    private void publishPolicy() {
        produce(KAFKA.bootstrapServers(), Topics.POLICY.name(prefix), Topics.POLICY, PipelinePolicy.records(ORG, TASK,
                ToolDescriptor.newBuilder().setProvider("webhook").setToolName(TOOL).setOperation(TOOL)
                        .setSchemaHash(SCHEMA).setReadOnlyHint(false).setDestructiveHint(null).setIdempotentHint(null)
                        .setOpenWorldHint(null).setApproval(ApprovalMode.HUMAN).setMaxInputBytes(4096).setEnabled(true)
                        .build()));
    }

    private static ActionProposal proposal() {
        String input = "{\"to\":\"ops@example.com\",\"body\":\"disk is full\"}";
        return ActionProposal.newBuilder().setTaskId(TASK).setToolCallId("c-2").setTaskVersion(1).setOrgId(ORG)
                .setPrincipalId("user-1").setProfileId("chat-default").setAuthorizationEpoch(1).setProvider("webhook")
                .setOperation(TOOL).setToolName(TOOL).setToolSchemaHash(SCHEMA).setInputJson(input)
                .setInputDigest(Digests.inputDigest(input)).setSummary("Email ops that the disk is full")
                .setIdempotencyKey(null).setBusinessOperationId(null).setOrigin(null).setAttachments(List.of())
                .setClaimedAnnotations(null).setProposedAt(Instant.now()).build();
    }

    private static void deleteTree(Path root) throws IOException {
        try (java.util.stream.Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!p.equals(root)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
