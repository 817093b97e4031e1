package io.actiongate.gate;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.StateStore;

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
import io.actiongate.avro.Origin;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.avro.UnknownOutcome;
import io.actiongate.avro.Verdict;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.key.ActionKey;
import io.actiongate.topics.Topics;

/**
 * Test fixture: the gate topology in a {@link TopologyTestDriver} with a demo policy, proposals with correct
 * digests and decisions signed by a key pair generated per fixture (its public key is the gate's trusted
 * {@link #KEY_ID}).
 */
final class GateDriver implements AutoCloseable {

    static final Instant START = Instant.parse("2026-03-01T12:00:00Z");
    static final String KEY_ID = "test-key";
    static final String ORG = "acme";
    static final String TASK = "T-1";
    static final String PROFILE = "chat-default";
    static final String PROVIDER = "webhook";
    static final String SEND = "send_email";
    static final String LOOKUP = "lookup";
    static final String SCHEMA = "sha256:schema-v1";
    static final String CONVERSATION = "conv-9";
    static final String TURN = "turn-3";
    static final String INPUT = "{\"to\":\"ops@example.com\",\"body\":\"disk is full\"}";

    final KeyPair keys;
    final GateConfig config;
    /** The providers' classifiers the gate asks; scriptable between records (null for real connectors). */
    final FakeClassifiers classifiers;
    final Path stateDir;
    final TopologyTestDriver driver;
    final TestInputTopic<String, ActionProposal> proposals;
    final TestInputTopic<String, Decision> decisions;
    final TestInputTopic<String, AttemptOutcome> outcomes;
    final TestInputTopic<String, Reconciliation> reconciliations;
    final TestInputTopic<String, PolicyRecord> policy;
    final TestInputTopic<byte[], byte[]> rawProposals;
    final TestInputTopic<byte[], byte[]> rawDecisions;
    final TestInputTopic<byte[], byte[]> rawOutcomes;
    final TestOutputTopic<String, Receipt> receipts;
    /** Every receipt the topology's {@link ReceiptObserver} saw, in order. */
    final List<Receipt> observedReceipts = new java.util.ArrayList<>();
    final TestOutputTopic<String, AttemptReservation> attempts;
    final TestOutputTopic<String, UnknownOutcome> unknowns;
    final TestOutputTopic<String, IdentityConflict> conflicts;
    final TestOutputTopic<byte[], DeadLetter> deadLetters;
    final TestOutputTopic<byte[], byte[]> rawReceipts;
    final TestOutputTopic<byte[], byte[]> rawConflicts;
    final TestOutputTopic<byte[], byte[]> rawDeadLetters;
    final TestOutputTopic<byte[], byte[]> rawAttempts;

    /** Application id of the driven topology (it names the internal hop topics). */
    static final String APPLICATION_ID = "gate-test";

    /** The partition count the topology routes by; the driver itself runs one task (partition 0). */
    final int partitions;

    private GateDriver(KeyPair keys, Map<String, String> overrides, Path stateDir) {
        this(keys, overrides, stateDir, FakeClassifiers.webhook(), ScannerCredentialCheck.defaults(), 1,
                AttachmentCheck.WITHOUT_STORAGE);
    }

    private GateDriver(KeyPair keys, Map<String, String> overrides, Path stateDir, OperationClassifiers operations,
                       io.actiongate.gate.internal.CredentialCheck credentials, int partitions,
                       AttachmentCheck attachments) {
        this.keys = keys;
        this.classifiers = operations instanceof FakeClassifiers fake ? fake : null;
        this.partitions = partitions;
        this.stateDir = stateDir;
        Map<String, String> values = new HashMap<>();
        values.put(GateConfig.TRUSTED_KEYS_CONFIG,
                KEY_ID + "=" + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded()));
        values.put(GateConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        values.putAll(overrides);
        this.config = GateConfig.fromStrings(values);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        this.driver = new TopologyTestDriver(
                GateTopology.build(config, operations, credentials, observedReceipts::add, partitions, attachments),
                props, START);
        String prefix = config.topicPrefix();
        StringSerializer strings = new StringSerializer();
        ByteArraySerializer bytes = new ByteArraySerializer();
        proposals = driver.createInputTopic(Topics.PROPOSALS.name(prefix), strings,
                Topics.PROPOSALS.valueSerde().serializer());
        decisions = driver.createInputTopic(Topics.DECISIONS.name(prefix), strings,
                Topics.DECISIONS.valueSerde().serializer());
        outcomes = driver.createInputTopic(Topics.OUTCOMES.name(prefix), strings,
                Topics.OUTCOMES.valueSerde().serializer());
        reconciliations = driver.createInputTopic(Topics.RECONCILIATIONS.name(prefix), strings,
                Topics.RECONCILIATIONS.valueSerde().serializer());
        policy = driver.createInputTopic(Topics.POLICY.name(prefix), strings, Topics.POLICY.valueSerde().serializer());
        rawProposals = driver.createInputTopic(Topics.PROPOSALS.name(prefix), bytes, bytes);
        rawDecisions = driver.createInputTopic(Topics.DECISIONS.name(prefix), bytes, bytes);
        rawOutcomes = driver.createInputTopic(Topics.OUTCOMES.name(prefix), bytes, bytes);
        receipts = driver.createOutputTopic(Topics.RECEIPTS.name(prefix), Serdes.String().deserializer(),
                Topics.RECEIPTS.valueSerde().deserializer());
        attempts = driver.createOutputTopic(Topics.ATTEMPTS.name(prefix), Serdes.String().deserializer(),
                Topics.ATTEMPTS.valueSerde().deserializer());
        unknowns = driver.createOutputTopic(Topics.UNKNOWN_OUTCOMES.name(prefix), Serdes.String().deserializer(),
                Topics.UNKNOWN_OUTCOMES.valueSerde().deserializer());
        conflicts = driver.createOutputTopic(Topics.CONFLICTS.name(prefix), Serdes.String().deserializer(),
                Topics.CONFLICTS.valueSerde().deserializer());
        deadLetters = driver.createOutputTopic(Topics.DEAD_LETTERS.name(prefix), Serdes.ByteArray().deserializer(),
                Topics.DEAD_LETTERS.valueSerde().deserializer());
        rawReceipts = raw(Topics.RECEIPTS.name(prefix));
        rawConflicts = raw(Topics.CONFLICTS.name(prefix));
        rawDeadLetters = raw(Topics.DEAD_LETTERS.name(prefix));
        rawAttempts = raw(Topics.ATTEMPTS.name(prefix));
    }

    private TestOutputTopic<byte[], byte[]> raw(String topic) {
        return driver.createOutputTopic(topic, Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer());
    }

    static GateDriver start(Path stateDir) {
        return start(stateDir, Map.of());
    }

    static GateDriver start(Path stateDir, Map<String, String> overrides) {
        return new GateDriver(newKeyPair(), overrides, stateDir);
    }

    /** A driver whose gate classifies with {@code operations} (e.g. real connectors). */
    static GateDriver start(Path stateDir, OperationClassifiers operations) {
        return new GateDriver(newKeyPair(), Map.of(), stateDir, operations, ScannerCredentialCheck.defaults(), 1,
                AttachmentCheck.WITHOUT_STORAGE);
    }

    /** A driver with another credential check (fault injection). */
    static GateDriver start(Path stateDir, io.actiongate.gate.internal.CredentialCheck credentials) {
        return new GateDriver(newKeyPair(), Map.of(), stateDir, FakeClassifiers.webhook(), credentials, 1,
                AttachmentCheck.WITHOUT_STORAGE);
    }

    /**
     * A driver whose topology routes by {@code partitions} partitions. The driver runs only task 0 and feeds every
     * input record to partition 0, so a key whose murmur2 home is another partition takes the hop: it is written to
     * the hop topic and read back (the driver pipes internal topics back into the topology).
     */
    static GateDriver startRouted(Path stateDir, int partitions) {
        return new GateDriver(newKeyPair(), Map.of(), stateDir, FakeClassifiers.webhook(),
                ScannerCredentialCheck.defaults(), partitions, AttachmentCheck.WITHOUT_STORAGE);
    }

    /** What the topology wrote to the internal topic of {@code hop} (a name in {@link GateTopology#HOPS}). */
    TestOutputTopic<byte[], byte[]> hop(String hop) {
        return raw(GateTopology.hopTopic(APPLICATION_ID, hop));
    }

    /** A driver whose admission checks attachments with {@code attachments} (object storage stand-in). */
    static GateDriver withAttachments(Path stateDir, AttachmentCheck attachments) {
        return new GateDriver(newKeyPair(), Map.of(), stateDir, FakeClassifiers.webhook(),
                ScannerCredentialCheck.defaults(), 1, attachments);
    }

    /** A second driver over the same state directory and keys (see {@link #snapshotStores()}). */
    GateDriver restart(Map<String, String> overrides) {
        return new GateDriver(keys, overrides, stateDir);
    }

    static KeyPair newKeyPair() {
        try {
            return KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- policy -------------------------------------------------------------------------------------------

    /** Epoch, task, grant, integration and two tools: send_email (HUMAN) and lookup (read-only, NONE). */
    GateDriver demoPolicy() {
        epoch(1);
        task(TASK, 1, LifecycleStatus.ACTIVE);
        grant(GrantMode.FULL_ACCESS, true, SEND, LOOKUP);
        integration(true);
        tool(tool(SEND).build());
        tool(tool(LOOKUP).setReadOnlyHint(true).setApproval(ApprovalMode.NONE).build());
        return this;
    }

    /** The records of {@link #demoPolicy()} by policy key. */
    static Map<String, PolicyRecord> demoPolicyRecords() {
        Map<String, PolicyRecord> r = new java.util.LinkedHashMap<>();
        r.put("epoch:" + ORG, PolicyRecord.newBuilder().setKind("epoch")
                .setBody(AuthorizationEpoch.newBuilder().setOrgId(ORG).setEpoch(1).build()).build());
        r.put("task:" + TASK, PolicyRecord.newBuilder().setKind("task").setBody(TaskState.newBuilder()
                .setTaskId(TASK).setVersion(1).setStatus(LifecycleStatus.ACTIVE).setOrgId(ORG).build()).build());
        r.put("grant:" + ORG + ":" + PROFILE, PolicyRecord.newBuilder().setKind("grant").setBody(Grant.newBuilder()
                .setOrgId(ORG).setProfileId(PROFILE).setTools(List.of(SEND, LOOKUP)).setMode(GrantMode.FULL_ACCESS)
                .setChatEnabled(true).build()).build());
        r.put("integration:" + ORG + ":" + PROVIDER, PolicyRecord.newBuilder().setKind("integration")
                .setBody(Integration.newBuilder().setOrgId(ORG).setProvider(PROVIDER).setEnabled(true)
                        .setScopes(List.of()).build()).build());
        r.put("tool:" + PROVIDER + ":" + SEND, PolicyRecord.newBuilder().setKind("tool").setBody(tool(SEND).build())
                .build());
        r.put("tool:" + PROVIDER + ":" + LOOKUP, PolicyRecord.newBuilder().setKind("tool")
                .setBody(tool(LOOKUP).setReadOnlyHint(true).setApproval(ApprovalMode.NONE).build()).build());
        return r;
    }

    static ToolDescriptor.Builder tool(String name) {
        return ToolDescriptor.newBuilder().setProvider(PROVIDER).setToolName(name).setOperation(name)
                .setSchemaHash(SCHEMA).setReadOnlyHint(false).setDestructiveHint(null).setIdempotentHint(null)
                .setOpenWorldHint(null).setApproval(ApprovalMode.HUMAN).setMaxInputBytes(4096).setEnabled(true);
    }

    void tool(ToolDescriptor t) {
        put("tool:" + t.getProvider() + ":" + t.getToolName(), "tool", t);
    }

    void epoch(long epoch) {
        put("epoch:" + ORG, "epoch", AuthorizationEpoch.newBuilder().setOrgId(ORG).setEpoch(epoch).build());
    }

    void task(String taskId, long version, LifecycleStatus status) {
        task(taskId, version, status, ORG);
    }

    /** A task owned by {@code org} (null: a task written before schema v2, owned by nobody). */
    void task(String taskId, long version, LifecycleStatus status, String org) {
        put("task:" + taskId, "task", TaskState.newBuilder().setTaskId(taskId).setVersion(version).setStatus(status)
                .setOrgId(org).build());
    }

    void grant(GrantMode mode, boolean chat, String... tools) {
        put("grant:" + ORG + ":" + PROFILE, "grant", Grant.newBuilder().setOrgId(ORG).setProfileId(PROFILE)
                .setTools(List.of(tools)).setMode(mode).setChatEnabled(chat).build());
    }

    void integration(boolean enabled) {
        integration(PROVIDER, enabled);
    }

    void integration(String provider, boolean enabled) {
        put("integration:" + ORG + ":" + provider, "integration", Integration.newBuilder().setOrgId(ORG)
                .setProvider(provider).setEnabled(enabled).setScopes(List.of()).build());
    }

    void origin(LifecycleStatus status, String activeTurn) {
        origin(status, activeTurn, ORG);
    }

    void origin(LifecycleStatus status, String activeTurn, String org) {
        put("origin:" + CONVERSATION, "origin", OriginState.newBuilder().setConversationId(CONVERSATION)
                .setStatus(status).setActiveTurnId(activeTurn).setOrgId(org).build());
    }

    void deletePolicy(String key) {
        policy.pipeInput(key, null);
    }

    /**
     * A second tenant: {@code org} gets its own epoch 1, an enabled webhook integration and the grant of
     * {@link #PROFILE} for both tools, so its proposals pass every check of its own org.
     */
    void tenant(String org) {
        put("epoch:" + org, "epoch", AuthorizationEpoch.newBuilder().setOrgId(org).setEpoch(1).build());
        put("integration:" + org + ":" + PROVIDER, "integration", Integration.newBuilder().setOrgId(org)
                .setProvider(PROVIDER).setEnabled(true).setScopes(List.of()).build());
        put("grant:" + org + ":" + PROFILE, "grant", Grant.newBuilder().setOrgId(org).setProfileId(PROFILE)
                .setTools(List.of(SEND, LOOKUP)).setMode(GrantMode.FULL_ACCESS).setChatEnabled(true).build());
    }

    /** The held action under {@code key} in the gate's action store, or null. */
    Object heldAction(String key) {
        return driver.getKeyValueStore(GateStores.ACTIONS).get(key);
    }

    /** The value of the gate metric {@code name} (group actiongate-gate) of task 0_0. */
    double gateMetric(String name) {
        return driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("actiongate-gate"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    private void put(String key, String kind, Object body) {
        policy.pipeInput(key, PolicyRecord.newBuilder().setKind(kind).setBody(body).build());
    }

    // ---- proposals ----------------------------------------------------------------------------------------

    /** A valid send_email proposal for {@code call} with a correct digest. */
    static ActionProposal.Builder proposal(String call) {
        return ActionProposal.newBuilder()
                .setTaskId(TASK).setToolCallId(call).setTaskVersion(1).setOrgId(ORG).setPrincipalId("user-1")
                .setProfileId(PROFILE).setAuthorizationEpoch(1).setProvider(PROVIDER).setOperation(SEND)
                .setToolName(SEND).setToolSchemaHash(SCHEMA).setInputJson(INPUT)
                .setInputDigest(Digests.inputDigest(INPUT)).setSummary("Email ops that the disk is full")
                .setIdempotencyKey(null).setBusinessOperationId(null).setOrigin(null).setAttachments(List.of())
                .setClaimedAnnotations(null).setProposedAt(START);
    }

    static ActionProposal.Builder lookup(String call) {
        return proposal(call).setOperation(LOOKUP).setToolName(LOOKUP);
    }

    /** Sets the input and its correct digest. */
    static ActionProposal.Builder withInput(ActionProposal.Builder b, String json) {
        return b.setInputJson(json).setInputDigest(Digests.inputDigest(json));
    }

    /** An origin on {@code turn} with the owner's message and the assistant's message that made the call. */
    static Origin origin(String turn) {
        return Origin.newBuilder().setConversationId(CONVERSATION).setTurnId(turn).setAssistantMessageId("m-assistant-7")
                .setHumanMessageId("m-human-6").build();
    }

    /**
     * Every topic a gate of {@code applicationId} on {@code prefix} reads as a consumer group: its four inputs and
     * its hops (the policy topic is read by its global store, outside the group).
     */
    static List<String> consumedTopics(String prefix, String applicationId) {
        List<String> topics = new ArrayList<>(List.of(Topics.PROPOSALS.name(prefix), Topics.DECISIONS.name(prefix),
                Topics.OUTCOMES.name(prefix), Topics.RECONCILIATIONS.name(prefix)));
        GateTopology.HOPS.forEach(h -> topics.add(GateTopology.hopTopic(applicationId, h)));
        return topics;
    }

    static String key(ActionProposal p) {
        return ActionKey.format(p.getTaskId(), p.getToolCallId());
    }

    ActionProposal propose(ActionProposal.Builder b) {
        ActionProposal p = b.build();
        proposals.pipeInput(key(p), p);
        return p;
    }

    // ---- decisions ----------------------------------------------------------------------------------------

    static String actionDigest(ActionProposal p) {
        return Digests.actionDigest(FrozenAction.of(p));
    }

    Decision.Builder decision(ActionProposal p, DecisionType type) {
        Instant now = now();
        return Decision.newBuilder().setDecisionId("d-" + UUID.randomUUID()).setTaskId(p.getTaskId())
                .setToolCallId(p.getToolCallId()).setType(type).setActionDigest(actionDigest(p))
                .setApproverSubject("alice@acme.example").setApproverOrg(ORG).setAuthMethod("webauthn")
                .setIssuedAt(now).setExpiresAt(now.plus(Duration.ofHours(1))).setKeyId(KEY_ID)
                .setSignature(java.nio.ByteBuffer.allocate(0));
    }

    Decision sign(Decision.Builder b) {
        return DecisionSigning.sign(b.build(), keys.getPrivate());
    }

    Decision decide(Decision d) {
        decisions.pipeInput(ActionKey.format(d.getTaskId(), d.getToolCallId()), d);
        return d;
    }

    Decision approve(ActionProposal p) {
        return decide(sign(decision(p, DecisionType.APPROVE)));
    }

    // ---- outcomes -----------------------------------------------------------------------------------------

    AttemptOutcome.Builder outcome(ActionProposal p, int attempt, OutcomeStatus status) {
        Instant now = now();
        return AttemptOutcome.newBuilder().setTaskId(p.getTaskId()).setToolCallId(p.getToolCallId())
                .setAttempt(attempt).setStatus(status).setDispatched(status != OutcomeStatus.NOT_DISPATCHED)
                .setHttpStatus(status == OutcomeStatus.SUCCEEDED ? 200 : null)
                .setProviderReceiptId(status == OutcomeStatus.SUCCEEDED ? "prov-1" : null)
                .setErrorCode(null).setErrorDetail(null).setRetryAt(null).setStartedAt(now).setFinishedAt(now)
                .setExecutorId("exec-1");
    }

    void report(AttemptOutcome.Builder b) {
        AttemptOutcome o = b.build();
        outcomes.pipeInput(ActionKey.format(o.getTaskId(), o.getToolCallId()), o);
    }

    void reconcile(ActionProposal p, int attempt, Verdict verdict) {
        reconciliations.pipeInput(key(p), Reconciliation.newBuilder().setTaskId(p.getTaskId())
                .setToolCallId(p.getToolCallId()).setAttempt(attempt).setVerdict(verdict).setEvidence("lookup 200")
                .setLookups(1).setProviderReceiptId(verdict == Verdict.EFFECT_CONFIRMED ? "prov-9" : null)
                .setCheckedAt(now()).build());
    }

    // ---- time and outputs ---------------------------------------------------------------------------------

    Instant now() {
        return START.plusMillis(elapsed);
    }

    private long elapsed;

    void advance(Duration d) {
        elapsed += d.toMillis();
        driver.advanceWallClockTime(d);
    }

    List<Receipt> receipts() {
        return receipts.readValuesToList();
    }

    Receipt lastReceipt() {
        List<Receipt> all = receipts();
        if (all.isEmpty()) {
            throw new AssertionError("no receipt was published");
        }
        return all.get(all.size() - 1);
    }

    /** Drains every output topic. */
    void drain() {
        receipts.readValuesToList();
        attempts.readValuesToList();
        unknowns.readValuesToList();
        conflicts.readValuesToList();
        deadLetters.readValuesToList();
    }

    /** Every output record of the topics that must never carry inputs, as text (key and value). */
    List<String> redactedOutputsAsText() {
        List<String> out = new ArrayList<>();
        for (TestOutputTopic<byte[], byte[]> topic : List.of(rawReceipts, rawConflicts, rawDeadLetters)) {
            topic.readRecordsToList().forEach(r -> {
                out.add(r.key() == null ? "" : new String(r.key(), StandardCharsets.ISO_8859_1));
                out.add(new String(r.value(), StandardCharsets.ISO_8859_1));
            });
        }
        return out;
    }

    /**
     * Closes every gate store, which writes RocksDB's memtables to disk, as a stopping instance does. The test
     * driver deletes its state directory when it closes, so a restart test copies the files aside after this and
     * puts them back for the next driver. Use the driver for nothing but {@link #close()} afterwards.
     */
    void closeStores() {
        for (String name : List.of(GateStores.ACTIONS, GateStores.TIMERS, GateStores.PENDING, GateStores.DECISION_IDS,
                GateStores.DECISION_CLAIMS, GateStores.POLICY)) {
            StateStore store = driver.getKeyValueStore(name);
            store.close();
        }
    }

    @Override
    public void close() {
        driver.close();
    }
}
