package io.actiongate.pipeline;

import static io.actiongate.executor.ItSupport.createTopics;
import static io.actiongate.executor.ItSupport.produce;
import static io.actiongate.executor.ItSupport.readAll;
import static io.actiongate.executor.ItSupport.readUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.cli.commands.DecideCommand;
import io.actiongate.cli.commands.ProposalJson;
import io.actiongate.contract.ReasonCode;
import io.actiongate.key.ActionKey;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.sandbox.MultipartForm;
import io.actiongate.sandbox.SandboxWebhookProvider.Fault;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.scan.CredentialScanner;
import io.actiongate.serde.AvroSetup;
import io.actiongate.storage.AttachmentLimits;
import io.actiongate.storage.AttachmentRef;
import io.actiongate.storage.AttachmentStager;
import io.actiongate.storage.EmbeddedS3Server;
import io.actiongate.storage.Invocations;
import io.actiongate.storage.ObjectStoreConfig;
import io.actiongate.storage.S3AttachmentStore;
import io.actiongate.topics.Topics;

/**
 * Private attachments end to end: the real gate, executor (with its pre-dispatch guard and the receipts cleaner)
 * and reconciler as one {@link ActiongateNode} on the embedded broker, a real S3-compatible server (S3Proxy on
 * loopback) and the sandbox webhook provider.
 * System tier: a whole node, an S3-compatible server and a provider, end to end.
 */
@Tag("system")
class AttachmentPipelineIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ORG = "acme";
    private static final String TASK = "T-1";
    private static final String TOOL = "send_report";
    private static final String SCHEMA = "sha256:schema-v1";
    private static final String KEY_ID = "owner-key";
    private static final Duration WAIT = Duration.ofSeconds(40);

    @TempDir
    static Path shared;

    private static SandboxWebhookProvider sandbox;
    private static EmbeddedS3Server s3;
    private static KeyPair ownerKey;

    @TempDir
    Path stateDir;

    private String prefix;
    private String applicationId;
    private String bucket;
    private Map<String, String> storage;
    private S3AttachmentStore store;
    private ActiongateNode node;

    @BeforeAll
    static void startServers() throws Exception {
        AvroSetup.install();
        sandbox = SandboxWebhookProvider.start();
        s3 = EmbeddedS3Server.start(Files.createDirectories(shared.resolve("s3")));
        ownerKey = KeyPairGenerator.getInstance(KeyFiles.ALGORITHM).generateKeyPair();
    }

    @AfterAll
    static void stopServers() {
        sandbox.close();
        s3.close();
    }

    @BeforeEach
    void setUp(TestInfo test) throws Exception {
        prefix = TestNames.topicPrefix(test);
        applicationId = TestNames.applicationId(test);
        bucket = ("b-" + Integer.toHexString(prefix.hashCode()) + "-" + System.nanoTime()).toLowerCase();
        sandbox.reset();
        createTopics(KAFKA.admin(), prefix, 3);
        publishPolicy();
        storage = s3.storageConfig(bucket, shared.resolve("secrets"));
        store = S3AttachmentStore.create(new ObjectStoreConfig(storage));
        store.init(1);
        node = ActiongateNode.start(config(test), Role.parse("gate,executor,reconciler"));
        ActiongateNode started = node;
        await().atMost(Duration.ofSeconds(60)).until(started::ready);
    }

    @AfterEach
    void tearDown() {
        if (node != null) {
            node.close();
        }
        if (store != null) {
            store.close();
        }
    }

    private Map<String, String> config(TestInfo test) {
        Map<String, String> c = new HashMap<>(storage);
        c.put("bootstrap.servers", KAFKA.bootstrapServers());
        c.put("topic.prefix", prefix);
        c.put("application.id", applicationId);
        c.put("executor.group.id", TestNames.applicationId(test) + "-executor");
        c.put("reconciler.group.id", TestNames.applicationId(test) + "-reconciler");
        c.put("state.dir", stateDir.toString());
        c.put("http.port", "0");
        c.put("http.bind.address", "127.0.0.1");
        c.put("node.shutdown.timeout.ms", "5000");
        c.put("gate.trusted.keys", KEY_ID + "=" + Base64.getEncoder().encodeToString(ownerKey.getPublic().getEncoded()));
        c.put("gate.lease.duration", "5s");
        c.put("gate.dispatch.timeout", "3s");
        c.put("gate.punctuate.interval", "200ms");
        c.put("gate.streams.commit.interval.ms", "100");
        c.put("executor.poll.timeout", "100");
        c.put("executor.shutdown.timeout", "2000");
        c.put("reconciler.poll.timeout", "100");
        c.put("reconciler.backoff.initial", "200");
        c.put("reconciler.backoff.max", "1000");
        c.put("reconciler.max.lookups", "3");
        c.put("connectors.webhook.base-url", sandbox.baseUri().toString());
        c.put("connectors.webhook.operations", TOOL);
        c.put("connectors.webhook.response-timeout-ms", "1500");
        c.put("storage.tool.webhook." + TOOL + ".content.types", "application/pdf,text/plain");
        return c;
    }

    // ---- the tests -----------------------------------------------------------------------------------------

    @Test
    void shouldDeliverTwoApprovedAttachmentsExactlyOnceAndEmptyTheBucket() {
        byte[] pdf = binaryPdf();
        byte[] text = "line one\nline two\n".getBytes(StandardCharsets.UTF_8);
        String key = "idem-" + prefix + "-two";
        List<AttachmentRef> refs = stage("c-two", List.of(new AttachmentStager.StagedFile(pdf, "application/pdf"),
                new AttachmentStager.StagedFile(text, "text/plain")));
        propose("c-two", key, refs);

        Receipt waiting = awaitReceipt("c-two", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);
        assertThat(objectsOf("c-two")).as("kept while waiting for approval").hasSize(2);
        decide("c-two", DecisionType.APPROVE, waiting.getActionDigest());

        awaitReceipt("c-two", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);
        assertThat(sandbox.requests(key)).isEqualTo(1);
        assertThat(sandbox.effects(key)).isEqualTo(1);
        List<List<MultipartForm.Part>> delivered = sandbox.attachments(key);
        assertThat(delivered).hasSize(1);
        assertThat(delivered.get(0)).hasSize(2);
        assertThat(delivered.get(0).get(0).bytes()).isEqualTo(pdf);
        assertThat(delivered.get(0).get(0).contentType()).isEqualTo("application/pdf");
        assertThat(delivered.get(0).get(1).bytes()).isEqualTo(text);
        assertThat(delivered.get(0).get(1).contentType()).isEqualTo("text/plain");

        await().atMost(WAIT).until(() -> objectsOf("c-two").isEmpty());
        assertNothingPrivateInAnyTopic(List.of(pdf, text));
    }

    @Test
    void shouldRefuseAnObjectSwappedAfterApprovalAtDispatchAndSendNothing() {
        byte[] approved = "pay 100 EUR to account A".getBytes(StandardCharsets.UTF_8);
        byte[] swapped = "pay 900 EUR to account B".getBytes(StandardCharsets.UTF_8);
        String key = "idem-" + prefix + "-swap";
        List<AttachmentRef> refs = stage("c-swap", List.of(new AttachmentStager.StagedFile(approved, "text/plain")));
        propose("c-swap", key, refs);
        Receipt waiting = awaitReceipt("c-swap", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);

        // same size, same content type, the metadata copied: only the bytes read at dispatch tell
        AttachmentRef ref = refs.get(0);
        s3.overwrite(bucket, ref.objectKey(), swapped, "text/plain", Map.of(S3AttachmentStore.META_OWNER,
                ref.ownerInvocationId(), S3AttachmentStore.META_SHA256, ref.sha256()));
        decide("c-swap", DecisionType.APPROVE, waiting.getActionDigest());

        Receipt failed = awaitReceipt("c-swap", r -> r.getStatus() == ReceiptStatus.FAILED);
        assertThat(failed.getReasonCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        assertThat(failed.getReason()).isEqualTo("refused before dispatch: attachments[0]: hash mismatch");
        assertThat(failed.getAttempts()).singleElement().satisfies(a -> {
            assertThat(a.getDispatched()).isFalse();
            assertThat(a.getErrorCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        });
        assertThat(sandbox.requests(key)).isZero();
        await().atMost(WAIT).until(() -> objectsOf("c-swap").isEmpty());
        assertNothingPrivateInAnyTopic(List.of(approved, swapped));
    }

    @Test
    void shouldRejectATamperedObjectAtAdmissionAndCleanUp() {
        byte[] bytes = "original".getBytes(StandardCharsets.UTF_8);
        List<AttachmentRef> refs = stage("c-tamper", List.of(new AttachmentStager.StagedFile(bytes, "text/plain")));
        AttachmentRef ref = refs.get(0);
        s3.overwrite(bucket, ref.objectKey(), "modified".getBytes(StandardCharsets.UTF_8), "text/plain",
                Map.of(S3AttachmentStore.META_OWNER, ref.ownerInvocationId(), S3AttachmentStore.META_SHA256,
                        HexFormat.of().formatHex(new byte[32])));
        propose("c-tamper", "idem-" + prefix + "-tamper", refs);

        Receipt rejected = awaitReceipt("c-tamper", r -> r.getStatus() == ReceiptStatus.REJECTED);
        assertThat(rejected.getReasonCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        await().atMost(WAIT).until(() -> objectsOf("c-tamper").isEmpty());
    }

    @Test
    void shouldKeepNoRefusedReferenceInAnyTopicTheProjectWritesInternalOnesIncluded() {
        // what outside clients sent as object_key: an upload URL with its signature, a URL with credentials and a
        // local path; and a summary carrying a token. Each is refused, and none may stay in any topic the gate
        // writes, its changelogs included, for the dedupe window
        String signed = "https://uploads.example.com/" + bucket + "/attachments/T-1/c-signed/x?X-Amz-Algorithm="
                + "AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260101&X-Amz-Signature="
                + "3f1c0a9d8e7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d";
        String withCredentials = "https://uploader:hunter2-not-a-real-one@store.example.com/attachments/T-1/c-cred/x";
        String localPath = "/home/alice/secret-project/q3-report.pdf";
        String digest = HexFormat.of().formatHex(new byte[32]).replace('0', 'a');
        proposeRefs("c-signed", List.of(new AttachmentRef(signed, digest, 10, "text/plain",
                ActionKey.format(TASK, "c-signed"))), null);
        proposeRefs("c-cred", List.of(new AttachmentRef(withCredentials, digest, 10, "text/plain",
                ActionKey.format(TASK, "c-cred"))), null);
        proposeRefs("c-path", List.of(new AttachmentRef(localPath, digest, 10, "application/pdf",
                ActionKey.format(TASK, "c-path"))), null);
        String token = "ghp_" + "Zx9Qw3Er5Ty7Ui1Op3As5Df7Gh9Jk1Lz3Xc5";
        proposeRefs("c-token", List.of(), "Send the report; the token is " + token);

        for (String call : List.of("c-signed", "c-cred", "c-path")) {
            Receipt r = awaitReceipt(call, x -> x.getStatus() == ReceiptStatus.REJECTED);
            assertThat(r.getReasonCode()).as(call).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        }
        assertThat(awaitReceipt("c-token", x -> x.getStatus() == ReceiptStatus.REJECTED).getReasonCode())
                .isEqualTo(ReasonCode.CREDENTIAL_MATERIAL.name());

        Map<String, List<byte[]>> written = recordsOfEveryTopicTheProjectWrites();
        assertThat(written).as("the gate's changelog is among them")
                .containsKey(applicationId + "-gate-actions-changelog");
        assertThat(written.get(applicationId + "-gate-actions-changelog")).as("refused actions are kept")
                .isNotEmpty();
        List<String> needles = List.of("X-Amz-Signature", "X-Amz-Credential", "AKIAIOSFODNN7EXAMPLE",
                "uploads.example.com", "hunter2-not-a-real-one", "store.example.com", "/home/alice", "secret-project",
                "q3-report", token);
        written.forEach((topic, records) -> {
            for (byte[] record : records) {
                for (String needle : needles) {
                    assertThat(indexOf(record, needle.getBytes(StandardCharsets.UTF_8)))
                            .as("%s holds <%s>", topic, needle).isNegative();
                }
            }
        });
    }

    @Test
    void shouldKeepObjectsWhileUnknownAndDeleteThemAfterTheOwnersResolutionOrADenial() {
        String unknownKey = "idem-" + prefix + "-unknown";
        sandbox.program(Fault.delayAfterApply(unknownKey, Duration.ofSeconds(3)));
        sandbox.program(Fault.lookupError(unknownKey, 100));
        stage("c-unknown", List.of(new AttachmentStager.StagedFile(new byte[] {1, 2, 3}, "application/pdf")));
        propose("c-unknown", unknownKey, objectRefs("c-unknown"));
        decide("c-unknown", DecisionType.APPROVE,
                awaitReceipt("c-unknown", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL).getActionDigest());

        stage("c-deny", List.of(new AttachmentStager.StagedFile(new byte[] {4}, "text/plain")));
        propose("c-deny", "idem-" + prefix + "-deny", objectRefs("c-deny"));
        Receipt denyWaiting = awaitReceipt("c-deny", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);
        decide("c-deny", DecisionType.REJECT, denyWaiting.getActionDigest());
        awaitReceipt("c-deny", r -> r.getStatus() == ReceiptStatus.DENIED);
        await().atMost(WAIT).until(() -> objectsOf("c-deny").isEmpty());

        Receipt unknown = awaitReceipt("c-unknown", r -> r.getStatus() == ReceiptStatus.UNKNOWN);
        await().atMost(WAIT).until(() -> sandbox.lookups(unknownKey) >= 3);
        // the cleaner has seen every receipt so far (c-deny's came later and is cleaned): UNKNOWN keeps the object
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> objectsOf("c-unknown").size() == 1);

        decide("c-unknown", DecisionType.RESOLVE_EFFECT_CONFIRMED, unknown.getActionDigest());
        awaitReceipt("c-unknown", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);
        await().atMost(WAIT).until(() -> objectsOf("c-unknown").isEmpty());
        assertThat(store.listKeys()).isEmpty();
        assertThat(sandbox.requests(unknownKey)).isEqualTo(1);
    }

    @Test
    void shouldRetryWithoutSendingWhileTheStoreIsDownAndNeverSucceedSilently(TestInfo test) throws Exception {
        // this test stops its object store, so it runs its own server and node
        node.close();
        node = null;
        EmbeddedS3Server outage = EmbeddedS3Server.start(Files.createDirectories(shared.resolve("outage-" + bucket)));
        try {
            storage = outage.storageConfig(bucket, shared.resolve("outage-secrets"));
            store.close();
            store = S3AttachmentStore.create(new ObjectStoreConfig(storage));
            store.init(1);
            Map<String, String> c = config(test);
            c.put("gate.retry.backoff", "300ms");
            node = ActiongateNode.start(c, Role.parse("gate,executor,reconciler"));
            ActiongateNode started = node;
            await().atMost(Duration.ofSeconds(60)).until(started::ready);

            String key = "idem-" + prefix + "-outage";
            propose("c-outage", key, stage("c-outage",
                    List.of(new AttachmentStager.StagedFile("bytes".getBytes(StandardCharsets.UTF_8), "text/plain"))));
            Receipt waiting = awaitReceipt("c-outage", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);
            outage.close();
            decide("c-outage", DecisionType.APPROVE, waiting.getActionDigest());

            Receipt failed = awaitReceipt("c-outage", r -> r.getStatus() == ReceiptStatus.FAILED);
            assertThat(failed.getReasonCode()).isEqualTo(ReasonCode.RETRIES_EXHAUSTED.name());
            assertThat(failed.getAttempts()).hasSize(3).allSatisfy(a -> {
                assertThat(a.getStatus()).isEqualTo(io.actiongate.avro.OutcomeStatus.NOT_DISPATCHED);
                assertThat(a.getDispatched()).isFalse();
                assertThat(a.getErrorCode()).isEqualTo("STORAGE_UNAVAILABLE");
            });
            assertThat(sandbox.requests(key)).isZero();
        } finally {
            outage.close();
        }
    }

    // ---- helpers -------------------------------------------------------------------------------------------

    private static byte[] binaryPdf() {
        byte[] bytes = new byte[3000];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 31 + 7);
        }
        byte[] header = "%PDF-1.7\n".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(header, 0, bytes, 0, header.length);
        return bytes;
    }

    private List<AttachmentRef> stage(String call, List<AttachmentStager.StagedFile> files) {
        return new AttachmentStager(store).stage(TASK, call, files,
                new AttachmentLimits(1 << 20, 4 << 20, 4, List.of("application/pdf", "text/plain")));
    }

    private List<AttachmentRef> objectRefs(String call) {
        return objectsOf(call).stream().map(k -> {
            var stored = store.describe(k).orElseThrow();
            return new AttachmentRef(k, stored.sha256(), stored.sizeBytes(), stored.contentType(),
                    stored.ownerInvocationId());
        }).toList();
    }

    private List<String> objectsOf(String call) {
        String invocationPrefix = Invocations.keyPrefix("attachments/", ActionKey.format(TASK, call));
        return store.listKeys().stream().filter(k -> k.startsWith(invocationPrefix)).toList();
    }

    private void publishPolicy() {
        produce(KAFKA.bootstrapServers(), Topics.POLICY.name(prefix), Topics.POLICY, PipelinePolicy.records(ORG, TASK,
                ToolDescriptor.newBuilder().setProvider("webhook").setToolName(TOOL).setOperation(TOOL)
                        .setSchemaHash(SCHEMA).setReadOnlyHint(false).setDestructiveHint(null).setIdempotentHint(null)
                        .setOpenWorldHint(true).setApproval(ApprovalMode.HUMAN).setMaxInputBytes(4096).setEnabled(true)
                        .build()));
    }

    /** A proposal as an outside client sends it, attachment references as given. */
    private void proposeRefs(String call, List<AttachmentRef> refs, String summary) {
        ActionProposal.Builder b = ActionProposal.newBuilder(proposal(call, "idem-" + prefix + "-" + call))
                .setAttachments(refs.stream().map(AttachmentRef::toAvro).toList());
        if (summary != null) {
            b.setSummary(summary);
        }
        produce(KAFKA.bootstrapServers(), Topics.PROPOSALS.name(prefix), Topics.PROPOSALS,
                Map.of(ActionKey.format(TASK, call), b.build()));
    }

    private void propose(String call, String idempotencyKey, List<AttachmentRef> refs) {
        ActionProposal proposal = ActionProposal.newBuilder(proposal(call, idempotencyKey))
                .setAttachments(refs.stream().map(AttachmentRef::toAvro).toList()).build();
        produce(KAFKA.bootstrapServers(), Topics.PROPOSALS.name(prefix), Topics.PROPOSALS,
                Map.of(ActionKey.format(TASK, call), proposal));
    }

    private ActionProposal proposal(String call, String idempotencyKey) {
        ObjectNode p = JSON.createObjectNode();
        p.put("task_id", TASK);
        p.put("tool_call_id", call);
        p.put("task_version", 1);
        p.put("org_id", ORG);
        p.put("principal_id", "user-1");
        p.put("profile_id", "chat-default");
        p.put("authorization_epoch", 1);
        p.put("provider", "webhook");
        p.put("operation", TOOL);
        p.put("tool_name", TOOL);
        p.put("tool_schema_hash", SCHEMA);
        ObjectNode input = p.putObject("input");
        input.put("to", "finance@example.com");
        input.put("subject", "monthly report");
        p.put("summary", "Send the monthly report with its attachments to finance");
        p.put("idempotency_key", idempotencyKey);
        return ProposalJson.fromJson(p, Instant.now());
    }

    /**
     * Every record (key and value bytes) of every topic this test's gate, executor and reconciler write: the
     * outputs and every internal topic of the application (changelogs, repartition topics), found by listing the
     * broker's topics, not from a list in the code. The inputs this test itself produced (proposals, decisions,
     * policy) are what an outside client wrote and are left out.
     */
    private Map<String, List<byte[]>> recordsOfEveryTopicTheProjectWrites() {
        java.util.Set<String> inputs = java.util.Set.of(Topics.PROPOSALS.name(prefix), Topics.DECISIONS.name(prefix),
                Topics.POLICY.name(prefix));
        List<String> topics;
        try {
            topics = KAFKA.admin().listTopics().names().get(30, java.util.concurrent.TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith(prefix) || t.startsWith(applicationId))
                    .filter(t -> !inputs.contains(t)).sorted().toList();
        } catch (Exception e) {
            throw new AssertionError("cannot list topics", e);
        }
        Map<String, List<byte[]>> records = new java.util.TreeMap<>();
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : topics) {
                records.put(topic, new ArrayList<>());
                consumer.partitionsFor(topic).forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() != null) {
                        records.get(r.topic()).add(r.key());
                    }
                    if (r.value() != null) {
                        records.get(r.topic()).add(r.value());
                    }
                }
            }
        }
        return records;
    }

    private void decide(String call, DecisionType type, String actionDigest) {
        Decision decision = DecideCommand.signed(new ActionKey(TASK, call), type, actionDigest, "owner@acme", ORG,
                "test", Duration.ofMinutes(5), KEY_ID, ownerKey.getPrivate(), Instant.now());
        produce(KAFKA.bootstrapServers(), Topics.DECISIONS.name(prefix), Topics.DECISIONS,
                Map.of(ActionKey.format(TASK, call), decision));
    }

    private Receipt awaitReceipt(String call, Predicate<Receipt> wanted) {
        Predicate<Receipt> match = r -> r.getToolCallId().equals(call) && wanted.test(r);
        List<Receipt> read = readUntil(KAFKA.bootstrapServers(), Topics.RECEIPTS.name(prefix), Topics.RECEIPTS,
                values -> values.stream().anyMatch(match), WAIT);
        return read.stream().filter(match).reduce((a, b) -> b).orElseThrow(() -> new AssertionError(
                "no such receipt for " + call + "; saw " + read.stream().filter(r -> r.getToolCallId().equals(call))
                        .map(r -> r.getStatus() + "/" + r.getReasonCode()).toList()));
    }

    /**
     * Every record of every actiongate topic, raw: no attachment bytes, no base64 of them, no local path of the
     * object store, no store URL and no presigned-URL parameter.
     */
    private void assertNothingPrivateInAnyTopic(List<byte[]> contents) {
        List<byte[]> records = new ArrayList<>();
        List<String> decoded = new ArrayList<>();
        Map<String, io.actiongate.topics.TopicSpec<?, ?>> specs = new HashMap<>();
        Topics.ALL.forEach(spec -> specs.put(spec.name(prefix), spec));
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : Topics.names(prefix)) {
                consumer.partitionsFor(topic).forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() != null) {
                        records.add(r.key());
                    }
                    if (r.value() != null) {
                        records.add(r.value());
                        Object value = specs.get(r.topic()).valueSerde().deserializer().deserialize(r.topic(),
                                r.value());
                        if (value instanceof Decision decision) {
                            // its signature is random bytes, which Avro's text shows as characters and escapes
                            // that can read as anything: a letter, a colon and an escape's backslash read as a
                            // Windows drive path. The scan is about what the system writes; the raw bytes are
                            // still searched below
                            value = Decision.newBuilder(decision).setSignature(java.nio.ByteBuffer.allocate(0))
                                    .build();
                        }
                        decoded.add(r.topic() + ": " + value);
                    }
                }
            }
        }
        assertThat(records).isNotEmpty();
        // the output rules of the credential scanner: no base64 content, local path, signed URL or credential
        CredentialScanner scanner = CredentialScanner.forOutputs();
        for (String text : decoded) {
            assertThat(scanner.scan(text).map(f -> f.detector())).as(text).isEmpty();
        }
        List<byte[]> forbidden = new ArrayList<>();
        for (byte[] content : contents) {
            forbidden.add(content.length > 16 ? java.util.Arrays.copyOfRange(content, 0, 16) : content);
            String b64 = Base64.getEncoder().encodeToString(content);
            forbidden.add(b64.substring(0, Math.min(12, b64.length())).getBytes(StandardCharsets.US_ASCII));
        }
        for (String text : List.of(s3.endpoint().toString(), "127.0.0.1:" + s3.endpoint().getPort(),
                s3.directory().toString(), shared.toString(), "X-Amz-Signature", "X-Amz-Credential", bucket)) {
            forbidden.add(text.getBytes(StandardCharsets.UTF_8));
        }
        for (byte[] record : records) {
            for (byte[] needle : forbidden) {
                assertThat(indexOf(record, needle)).as("a topic record holds <%s>",
                        new String(needle, StandardCharsets.UTF_8)).isNegative();
            }
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
