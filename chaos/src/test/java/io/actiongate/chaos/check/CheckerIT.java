package io.actiongate.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.broker.EmbeddedKafkaBroker;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * The checker finds each kind of violation it claims to check (each planted in a doctored history), and passes a clean
 * action and the probe's real committed and aborted transactions.
 */
class CheckerIT {

    private static final String PREFIX = "neg.";
    private static final String SECRET = "planted-secret-0123456789";
    private static final String MARKER = "chaos-input-";
    private static final String PROBE = "probe";
    private static final String APPROVALS = "appr.";
    private static final String MCP = "mcp.";
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafkaBroker.builder().start();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of(PREFIX, 1, (short) 1));
            new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of(APPROVALS, 1, (short) 1));
            new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of(MCP, 1, (short) 1));
            admin.createTopics(List.of(new NewTopic(PREFIX + PROBE, 1, (short) 1))).all().get();
        }
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @Test
    void shouldReportDuplicatesLostLeaksAndHangingTransactionsAndPassACleanAction() throws Exception {
        try (KafkaProducer<String, byte[]> producer = producer(null)) {
            // t/dup: SUCCEEDED, but its key reached the provider's apply step twice
            reserve(producer, "dup", "K-dup");
            receipt(producer, "dup", ReceiptStatus.DISPATCHING, null);
            receipt(producer, "dup", ReceiptStatus.SUCCEEDED, null);
            // t/stuck: never settles
            reserve(producer, "stuck", "K-stuck");
            receipt(producer, "stuck", ReceiptStatus.DISPATCHING, null);
            // t/failed: FAILED although the provider applied its effect
            reserve(producer, "failed", "K-failed");
            receipt(producer, "failed", ReceiptStatus.FAILED, null);
            // t/leak: a receipt carrying the planted secret and an input body
            reserve(producer, "leak", "K-leak");
            receipt(producer, "leak", ReceiptStatus.REJECTED, "token " + SECRET + " " + MARKER + "x");
            // t/again: terminal, then terminal again
            receipt(producer, "again", ReceiptStatus.DENIED, null);
            receipt(producer, "again", ReceiptStatus.EXPIRED, null);
            // t/back: SUCCEEDED, then DISPATCHING again (backwards in the lifecycle table)
            reserve(producer, "back", "K-back");
            receipt(producer, "back", ReceiptStatus.DISPATCHING, null);
            receipt(producer, "back", ReceiptStatus.SUCCEEDED, null);
            receipt(producer, "back", ReceiptStatus.DISPATCHING, null);
            receipt(producer, "back", ReceiptStatus.SUCCEEDED, null);
            // t/shrink: a settled attempt dropped from a later receipt; every status move itself is forward
            reserve(producer, "shrink", "K-shrink");
            receipt(producer, "shrink", ReceiptStatus.DISPATCHING, null);
            receipt(producer, "shrink", ReceiptStatus.APPROVED, null, summary(1, OutcomeStatus.RETRYABLE));
            receipt(producer, "shrink", ReceiptStatus.FAILED, null);
            // t/shared-1 and t/shared-2: two actions' reservations carry the key of one provider effect
            reserve(producer, "shared-1", "K-shared");
            receipt(producer, "shared-1", ReceiptStatus.DISPATCHING, null);
            receipt(producer, "shared-1", ReceiptStatus.SUCCEEDED, null, summary(1, OutcomeStatus.SUCCEEDED));
            reserve(producer, "shared-2", "K-shared");
            receipt(producer, "shared-2", ReceiptStatus.DISPATCHING, null);
            receipt(producer, "shared-2", ReceiptStatus.UNKNOWN, null, summary(1, OutcomeStatus.UNKNOWN));
            // t/twice: one effect, but two attempts reported SUCCEEDED
            reserve(producer, "twice", "K-twice", 1);
            reserve(producer, "twice", "K-twice", 2);
            receipt(producer, "twice", ReceiptStatus.DISPATCHING, null);
            receipt(producer, "twice", ReceiptStatus.SUCCEEDED, null, summary(1, OutcomeStatus.SUCCEEDED),
                    summary(2, OutcomeStatus.SUCCEEDED));
            // a probe value the probe log says was aborted, written outside any transaction: an aborted read
            producer.send(new ProducerRecord<>(PREFIX + PROBE, "x", "probe-2-0".getBytes(StandardCharsets.UTF_8)));
            // t/clean: one dispatch, one effect, SUCCEEDED
            reserve(producer, "clean", "K-clean");
            receipt(producer, "clean", ReceiptStatus.DISPATCHING, null);
            receipt(producer, "clean", ReceiptStatus.SUCCEEDED, null);
            producer.flush();
        }
        // the probe's real transactions: one committed, one aborted; the checker must accept both
        try (KafkaProducer<String, byte[]> txn = producer("chaos-probe-it")) {
            txn.initTransactions();
            txn.beginTransaction();
            txn.send(new ProducerRecord<>(PREFIX + PROBE, "x", "probe-0-0".getBytes(StandardCharsets.UTF_8)));
            txn.commitTransaction();
            txn.beginTransaction();
            txn.send(new ProducerRecord<>(PREFIX + PROBE, "x", "probe-1-0".getBytes(StandardCharsets.UTF_8)));
            txn.flush();
            txn.abortTransaction();
        }
        ProbeLog probe = new ProbeLog(PROBE, Map.of(
                0L, new ProbeLog.Txn(ProbeLog.Outcome.COMMITTED, List.of("probe-0-0")),
                1L, new ProbeLog.Txn(ProbeLog.Outcome.ABORTED, List.of("probe-1-0")),
                2L, new ProbeLog.Txn(ProbeLog.Outcome.ABORTED, List.of("probe-2-0")),
                3L, new ProbeLog.Txn(ProbeLog.Outcome.COMMITTED, List.of("probe-3-0"))));
        // a transaction left open: its producer never commits nor aborts
        KafkaProducer<String, byte[]> hanging = producer("chaos-hanging-txn");
        hanging.initTransactions();
        hanging.beginTransaction();
        hanging.send(new ProducerRecord<>(Topics.CONFLICTS.name(PREFIX), "k", new byte[] {1})).get();
        Thread.sleep(2_500);

        ProviderLog provider = new ProviderLog(Map.of(
                "K-dup", new ProviderLog.Entry(3, 2, 1, 0),
                "K-failed", new ProviderLog.Entry(1, 1, 1, 0),
                "K-clean", new ProviderLog.Entry(1, 1, 1, 0),
                "K-nobody", new ProviderLog.Entry(1, 1, 1, 0),
                "K-back", new ProviderLog.Entry(1, 1, 1, 0),
                "K-shared", new ProviderLog.Entry(1, 1, 1, 0),
                "K-twice", new ProviderLog.Entry(2, 1, 1, 0)));
        List<ExpectedAction> expected = List.of(action("dup"), action("stuck"), action("failed"), action("leak"),
                action("again"), action("back"), action("shrink"), action("shared-1"), action("shared-2"),
                action("twice"), action("clean"));

        CheckResult result = new Checker(broker.bootstrapServers(), PREFIX, MARKER, SECRET, Duration.ofSeconds(1),
                Duration.ofSeconds(2)).check(expected, provider, probe);
        hanging.close(Duration.ZERO);

        assertThat(result.ok()).isFalse();
        assertThat(result.duplicates()).isEqualTo(2); // (a) K-dup applied twice, (c) t/dup SUCCEEDED with 2
        // t/stuck unsettled, t/failed's effect, K-nobody's effect, the committed probe-3-0 missing
        assertThat(result.lost()).isEqualTo(4);
        assertThat(result.hanging()).isEqualTo(1);
        assertThat(result.violations()).anySatisfy(v -> assertThat(v).startsWith("(a) idempotency key K-dup"))
                .anySatisfy(v -> assertThat(v).startsWith("(b) t/stuck"))
                .anySatisfy(v -> assertThat(v).startsWith("(c) t/failed ended FAILED"))
                .anySatisfy(v -> assertThat(v).startsWith("(c) provider effect for key K-nobody"))
                .anySatisfy(v -> assertThat(v).startsWith("(d) t/again changed after terminal DENIED"))
                .anySatisfy(v -> assertThat(v).startsWith("(g) the planted secret is in receipts"))
                .anySatisfy(v -> assertThat(v).startsWith("(g) an input body is in receipts"))
                .anySatisfy(v -> assertThat(v).startsWith("(f) hanging transaction chaos-hanging-txn"))
                .anySatisfy(v -> assertThat(v).startsWith("(h) t/back went backwards from SUCCEEDED to DISPATCHING"))
                .anySatisfy(v -> assertThat(v).startsWith("(h) t/shrink receipt dropped attempts: [1] then []"))
                .anySatisfy(v -> assertThat(v).startsWith("(i) provider effect for key K-shared maps to the "
                        + "reservations of 2 actions"))
                .anySatisfy(v -> assertThat(v).startsWith("(i) t/twice reports 2 succeeded attempts"))
                .anySatisfy(v -> assertThat(v).startsWith("(j) aborted record probe-2-0 (probe transaction 2) read"))
                .anySatisfy(v -> assertThat(v).startsWith("(j) committed record probe-3-0 (probe transaction 3) "
                        + "missing"))
                .anySatisfy(v -> assertThat(v).startsWith("(k) transaction chaos-hanging-txn"))
                .noneSatisfy(v -> assertThat(v).contains("t/clean"))
                .noneSatisfy(v -> assertThat(v).containsAnyOf("probe-0-0", "probe-1-0", "chaos-probe-it"))
                .noneSatisfy(v -> assertThat(v).startsWith("(h) t/shrink went backwards"))
                .noneSatisfy(v -> assertThat(v).startsWith("(h) t/shared"))
                .noneSatisfy(v -> assertThat(v).startsWith("(i) t/shared"));
        assertThat(result.count("actions.checked")).isEqualTo(11);
        assertThat(result.count("(a) provider idempotency keys checked")).isEqualTo(7);
        assertThat(result.count("(j) probe transactions checked")).isEqualTo(4);
        assertThat(result.count("(k) transactions open at the end")).isEqualTo(1);
        assertThat(result.describe()).contains("RESULT: 2 duplicates, 4 lost, 1 hanging");
    }

    @Test
    void shouldReportAnEffectWithoutExactlyOneValidApproval() throws Exception {
        KeyPair trusted = KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        KeyPair stranger = KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        try (KafkaProducer<String, byte[]> producer = producer(null)) {
            // t/none: an effect of the approval tool, its reservation names no decision
            approvedReserve(producer, "none", 1, null, "sha256:none");
            // t/forged: the named decision is signed by a key the gate does not trust
            approvedReserve(producer, "forged", 1, "d-forged", "sha256:forged");
            decide(producer, "forged", "d-forged", DecisionType.APPROVE, "sha256:forged", "trusted", stranger);
            // t/digest: validly signed, but for another action digest than the one reserved
            approvedReserve(producer, "digest", 1, "d-digest", "sha256:digest");
            decide(producer, "digest", "d-digest", DecisionType.APPROVE, "sha256:other", "trusted", trusted);
            // t/two: two attempts reserved under two different approvals
            approvedReserve(producer, "two", 1, "d-two-a", "sha256:two");
            approvedReserve(producer, "two", 2, "d-two-b", "sha256:two");
            decide(producer, "two", "d-two-a", DecisionType.APPROVE, "sha256:two", "trusted", trusted);
            decide(producer, "two", "d-two-b", DecisionType.APPROVE, "sha256:two", "trusted", trusted);
            // t/reject: the named decision is a REJECT
            approvedReserve(producer, "reject", 1, "d-reject", "sha256:reject");
            decide(producer, "reject", "d-reject", DecisionType.REJECT, "sha256:reject", "trusted", trusted);
            // t/missing: the named decision never reached the decisions topic
            approvedReserve(producer, "missing", 1, "d-missing", "sha256:missing");
            // t/good: one valid approval, published twice with two ids (a replica killed after publishing): fine
            approvedReserve(producer, "good", 1, "d-good", "sha256:good");
            decide(producer, "good", "d-good", DecisionType.APPROVE, "sha256:good", "trusted", trusted);
            decide(producer, "good", "d-good-again", DecisionType.APPROVE, "sha256:good", "trusted", trusted);
            // t/read: a read-only tool's effect needs no approval
            AttemptReservation read = reservation("read", 1, null, "sha256:read").setToolName("get_notes")
                    .setOperation("get_notes").build();
            producer.send(new ProducerRecord<>(Topics.ATTEMPTS.name(APPROVALS), "t/read",
                    Topics.ATTEMPTS.valueSerde().serializer().serialize(null, read)));
            producer.flush();
        }
        Map<String, ProviderLog.Entry> effects = new java.util.HashMap<>();
        for (String call : List.of("none", "forged", "digest", "two", "reject", "missing", "good", "read")) {
            effects.put("K-" + call, new ProviderLog.Entry(1, 1, 1, 0));
        }
        CheckResult result = new Checker(broker.bootstrapServers(), APPROVALS, MARKER, SECRET, Duration.ofSeconds(30),
                Duration.ofSeconds(2)).requireApprovals(Map.of("trusted", trusted.getPublic()), Set.of("post_update"))
                .check(List.of(), new ProviderLog(effects));

        assertThat(result.violations()).filteredOn(v -> v.startsWith("(m)")).hasSize(6)
                .anySatisfy(v -> assertThat(v).startsWith("(m) t/none has a provider effect without exactly one "
                        + "approval: its reservations name no decision"))
                .anySatisfy(v -> assertThat(v).startsWith("(m) t/forged has a provider effect whose approval d-forged "
                        + "is not a valid approval: its signature does not verify under key trusted"))
                .anySatisfy(v -> assertThat(v).startsWith("(m) t/digest has a provider effect whose approval d-digest "
                        + "is not a valid approval: it approves action digest sha256:other"))
                .anySatisfy(v -> assertThat(v).startsWith("(m) t/two has a provider effect without exactly one "
                        + "approval: its reservations name decisions [d-two-a, d-two-b]"))
                .anySatisfy(v -> assertThat(v).startsWith("(m) t/reject has a provider effect whose approval d-reject "
                        + "is not a valid approval: its type is REJECT"))
                .anySatisfy(v -> assertThat(v).startsWith("(m) t/missing has a provider effect whose approval "
                        + "d-missing is not in decisions"))
                .noneSatisfy(v -> assertThat(v).containsAnyOf("t/good", "t/read"));
        assertThat(result.count("(m) effects checked for exactly one valid approval")).isEqualTo(7);
        assertThat(result.count("(m) effects of tools without approval")).isEqualTo(1);
        assertThat(result.count("(m) actions with more than one approval published (the gate may use one)"))
                .isEqualTo(2);
    }

    @Test
    void shouldReportAnMcpCallWithTwoEffectsAndAnMcpEffectWithoutExactlyOneReservation(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (KafkaProducer<String, byte[]> producer = producer(null)) {
            for (String call : List.of("m-once", "m-rekeyed", "m-twice", "m-shared", "m-other")) {
                mcpReserve(producer, call, "K-" + call);
            }
            // t/m-rekeyed: the same call reserved under a second idempotency key (a redelivery the gate did not know)
            mcpReserve(producer, "m-rekeyed", "K-m-rekeyed-2");
            // t/m-shared: its key is also reserved by another action
            mcpReserve(producer, "m-other", "K-m-shared");
            producer.flush();
        }
        java.nio.file.Path log = dir.resolve("mcp-effects.jsonl");
        java.nio.file.Files.write(log, List.of(
                execution("K-m-once", "t/m-once", true),
                // two keys, two effects for one MCP call
                execution("K-m-rekeyed", "t/m-rekeyed", true),
                execution("K-m-rekeyed-2", "t/m-rekeyed", true),
                // the same key executed twice: its store hid the effect, a server without one would have two
                execution("K-m-twice", "t/m-twice", true),
                execution("K-m-twice", "t/m-twice", false),
                execution("K-m-shared", "t/m-shared", true),
                // an execution for a call the load never issued
                execution("K-m-stray", "t/m-stray", true)));
        CheckResult result = new Checker(broker.bootstrapServers(), MCP, MARKER, SECRET, Duration.ofSeconds(30),
                Duration.ofSeconds(2))
                .requireMcp(McpLog.read(log), Set.of("t/m-once", "t/m-rekeyed", "t/m-twice", "t/m-shared",
                        "t/m-other", "t/m-none"))
                .check(List.of(), new ProviderLog(Map.of()));

        assertThat(result.violations()).filteredOn(v -> v.startsWith("(n)")).hasSize(4)
                .anySatisfy(v -> assertThat(v).isEqualTo("(n) MCP call t/m-rekeyed executed 2 times at the upstream "
                        + "(keys [K-m-rekeyed, K-m-rekeyed-2])"))
                .anySatisfy(v -> assertThat(v).isEqualTo("(n) MCP call t/m-twice executed 2 times at the upstream "
                        + "(keys [K-m-twice])"))
                .anySatisfy(v -> assertThat(v).isEqualTo("(n) upstream execution of key K-m-stray carries action "
                        + "t/m-stray, no MCP call the load issued"))
                .anySatisfy(v -> assertThat(v).isEqualTo("(n) MCP effect of t/m-shared under key K-m-shared maps to "
                        + "the reservations of [t/m-other, t/m-shared], not of exactly that one"))
                .noneSatisfy(v -> assertThat(v).contains("t/m-once"));
        assertThat(result.duplicates()).isGreaterThanOrEqualTo(2);
        assertThat(result.count("(n) MCP calls issued by the load")).isEqualTo(6);
        assertThat(result.count("(n) MCP tool executions at the upstream")).isEqualTo(7);
        assertThat(result.count("(n) MCP calls with an effect at the upstream")).isEqualTo(4);
        assertThat(result.count("(n) MCP effects mapped to exactly one reservation")).isEqualTo(4);
        // the executions joined the provider log: (a) sees the key executed twice, (c) the stray effect
        assertThat(result.violations())
                .anySatisfy(v -> assertThat(v).startsWith("(a) idempotency key K-m-twice reached the provider's "
                        + "apply step 2 times"))
                .anySatisfy(v -> assertThat(v).isEqualTo("(c) provider effect for key K-m-stray that no reserved "
                        + "attempt carries"));
        assertThat(result.count("(a) provider idempotency keys checked")).isEqualTo(6);
    }

    private static String execution(String key, String action, boolean newEffect) {
        return "{\"idempotency_key\":\"" + key + "\",\"action_key\":\"" + action + "\",\"meta_idempotency_key\":\""
                + key + "\",\"meta_action_key\":\"" + action + "\",\"new_effect\":" + newEffect + ",\"id\":\"note-1\"}";
    }

    private static void mcpReserve(KafkaProducer<String, byte[]> producer, String call, String idempotencyKey) {
        AttemptReservation r = reservation(call, 1, null, "sha256:" + call).setIdempotencyKey(idempotencyKey)
                .setProvider("mcp").setOperation("notes/notes_post").setToolName("notes_post").build();
        producer.send(new ProducerRecord<>(Topics.ATTEMPTS.name(MCP), "t/" + call,
                Topics.ATTEMPTS.valueSerde().serializer().serialize(null, r)));
    }

    private static AttemptReservation.Builder reservation(String call, int attempt, String decisionId,
                                                          String digest) {
        return AttemptReservation.newBuilder().setTaskId("t").setToolCallId(call).setAttempt(attempt)
                .setIdempotencyKey("K-" + call).setOrgId("o").setProvider("webhook").setOperation("post_update")
                .setToolName("post_update").setInputJson("{}").setAttachments(List.of()).setActionDigest(digest)
                .setToolSchemaHash("sha256:s").setReservedAt(Instant.now())
                .setLeaseExpiresAt(Instant.now().plusSeconds(10)).setDecisionId(decisionId)
                .setApprovedBy(decisionId == null ? null : "alice").setSummary(null);
    }

    private static void approvedReserve(KafkaProducer<String, byte[]> producer, String call, int attempt,
                                        String decisionId, String digest) {
        producer.send(new ProducerRecord<>(Topics.ATTEMPTS.name(APPROVALS), "t/" + call,
                Topics.ATTEMPTS.valueSerde().serializer().serialize(null,
                        reservation(call, attempt, decisionId, digest).build())));
    }

    private static void decide(KafkaProducer<String, byte[]> producer, String call, String decisionId,
                               DecisionType type, String digest, String keyId, KeyPair signer) {
        Instant now = Instant.now();
        Decision unsigned = Decision.newBuilder().setDecisionId(decisionId).setTaskId("t").setToolCallId(call)
                .setType(type).setActionDigest(digest).setApproverSubject("alice").setApproverOrg("o")
                .setAuthMethod("totp").setIssuedAt(now).setExpiresAt(now.plusSeconds(600)).setKeyId(keyId)
                .setSignature(ByteBuffer.allocate(0)).build();
        producer.send(new ProducerRecord<>(Topics.DECISIONS.name(APPROVALS), "t/" + call,
                Topics.DECISIONS.valueSerde().serializer().serialize(null, DecisionSigning.sign(unsigned,
                        signer.getPrivate()))));
    }

    private static ExpectedAction action(String call) {
        return new ExpectedAction("t/" + call, "APPROVED", true, MARKER + call);
    }

    private static KafkaProducer<String, byte[]> producer(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        if (transactionalId != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    private static void reserve(KafkaProducer<String, byte[]> producer, String call, String idempotencyKey) {
        reserve(producer, call, idempotencyKey, 1);
    }

    private static AttemptSummary summary(int attempt, OutcomeStatus status) {
        return AttemptSummary.newBuilder().setAttempt(attempt).setStatus(status).setDispatched(true)
                .setHttpStatus(null).setErrorCode(null).setStartedAt(null).setFinishedAt(null).build();
    }

    private static void reserve(KafkaProducer<String, byte[]> producer, String call, String idempotencyKey,
                                int attempt) {
        AttemptReservation r = AttemptReservation.newBuilder().setTaskId("t").setToolCallId(call).setAttempt(attempt)
                .setIdempotencyKey(idempotencyKey).setOrgId("o").setProvider("webhook").setOperation("post_update")
                .setToolName("post_update").setInputJson("{\"note\":\"" + MARKER + call + "\"}")
                .setAttachments(List.of()).setActionDigest("sha256:x").setToolSchemaHash("sha256:s")
                .setReservedAt(Instant.now()).setLeaseExpiresAt(Instant.now().plusSeconds(10)).build();
        producer.send(new ProducerRecord<>(Topics.ATTEMPTS.name(PREFIX), "t/" + call,
                Topics.ATTEMPTS.valueSerde().serializer().serialize(null, r)));
    }

    private static void receipt(KafkaProducer<String, byte[]> producer, String call, ReceiptStatus status,
                                String reason, AttemptSummary... attempts) {
        Receipt r = Receipt.newBuilder().setTaskId("t").setToolCallId(call).setStatus(status).setReasonCode(null)
                .setReason(reason).setOrgId("o").setToolName("post_update").setProvider("webhook")
                .setOperation("post_update").setInputDigest(null).setActionDigest(null).setDecisionId(null)
                .setAttempts(List.of(attempts)).setProviderReceiptId(null).setResolvedBy(null).setUpdatedAt(Instant.now())
                .build();
        producer.send(new ProducerRecord<>(Topics.RECEIPTS.name(PREFIX), "t/" + call,
                Topics.RECEIPTS.valueSerde().serializer().serialize(null, r)));
    }
}
