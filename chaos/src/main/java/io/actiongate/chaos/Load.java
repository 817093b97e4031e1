package io.actiongate.chaos;

import java.nio.ByteBuffer;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.PolicyKey;
import io.actiongate.topics.Topics;

/**
 * The chaos run's agent and approver. The agent proposes a seeded mix of actions through two producers with
 * different partitioners (the Java client's murmur2 and librdkafka's CRC32 {@code consistent}); the approver watches
 * the receipts ({@code read_committed}) and signs APPROVE or REJECT with a key the gate trusts when an action waits
 * for approval. The watcher also records when each action first reached a settled receipt, for the recovery times.
 */
final class Load implements AutoCloseable {

    static final String ORG = "chaos";
    static final String PROFILE = "agent";
    static final String PROVIDER = "webhook";
    static final String MCP_PROVIDER = "mcp";
    static final String READ_TOOL = "get_notes";
    static final String SEND_TOOL = "post_update";
    static final String SCHEMA_HASH = "sha256:chaos-schema-v1";
    static final String KEY_ID = "chaos-approver";
    static final String APPROVER = "approver@chaos";
    static final String INPUT_MARKER = "chaos-input-";

    /** What kind of action, and what the approver does with it. */
    enum Kind {
        /** read-only tool, approval NONE: dispatched at once */
        READ,
        /** effect tool, approved by a signed decision */
        APPROVED,
        /** effect tool, rejected by a signed decision: never dispatched */
        REJECTED,
        /** the same tool call id proposed twice with different inputs: an identity conflict, one action */
        CONFLICTING,
        /** the same proposal sent by both producers, its decision twice too: one action, one effect */
        REDELIVERED,
        // an upgrade run's actions in flight across the replacement of the roles (never drawn by submit())
        /** effect tool whose approval is held back until {@link #releaseHeld}: a human decides after the upgrade */
        AWAITING_HUMAN,
        /** effect tool, approved at once (valid a day); the provider answers its first dispatch 429, retry later */
        RETRY_DUE,
        /** effect tool, approved with a decision that expires before its retry after a 429: EXPIRED, no effect */
        EXPIRING,
        /** read tool whose dispatch times out after applying and whose lookups fail for a while: UNKNOWN, asked */
        RECONCILER_ASKING,
        /** read tool whose request the provider holds for a while: dispatching while executors are replaced */
        AT_PROVIDER,
        /** effect tool approved at once while the executors are paused: approved and reserved, not dispatched */
        RESERVED,
        /** read tool proposed to the previous release's gate after the upgrade (the rollback drill) */
        ROLLBACK_READ;

        /** The kinds submit() draws from. */
        static final List<Kind> DRAWN = List.of(READ, APPROVED, REJECTED, CONFLICTING, REDELIVERED);

        boolean readTool() {
            return this == READ || this == CONFLICTING || this == RECONCILER_ASKING || this == AT_PROVIDER
                    || this == ROLLBACK_READ;
        }

        /** Whether proposals of this kind carry an idempotency key of their own (the provider's faults aim at it). */
        boolean ownKey() {
            return !DRAWN.contains(this);
        }
    }

    /** How long an {@link Kind#EXPIRING} action's approval is valid: less than the Retry-After its 429 answers. */
    static final Duration SHORT_APPROVAL = Duration.ofSeconds(20);

    /** One action the agent submitted; {@code acked} once the broker acknowledged its proposal. */
    static final class Action {
        final String key;
        final String callId;
        final Kind kind;
        final String tool;
        final String marker;
        final long submittedAtMs;
        final ActionProposal proposal;
        volatile boolean acked;
        volatile long settledAtMs;
        volatile String settledStatus;
        /** decided through the approval service's pages rather than signed by this load */
        volatile boolean viaService;
        /** the last receipt status seen, and when this load sent (or handed) the action's decision (0: not yet) */
        volatile String lastStatus;
        volatile long decidedAtMs;
        volatile String decision;

        /** The idempotency key its proposal carries (its own for an upgrade run's kinds), or null (derived). */
        String idempotencyKey() {
            return proposal.getIdempotencyKey();
        }

        Action(String key, String callId, Kind kind, String tool, String marker, long submittedAtMs,
               ActionProposal proposal) {
            this.key = key;
            this.callId = callId;
            this.kind = kind;
            this.tool = tool;
            this.marker = marker;
            this.submittedAtMs = submittedAtMs;
            this.proposal = proposal;
        }
    }

    private static final Set<ReceiptStatus> SETTLED = Set.of(ReceiptStatus.SUCCEEDED, ReceiptStatus.FAILED,
            ReceiptStatus.REJECTED, ReceiptStatus.DENIED, ReceiptStatus.EXPIRED, ReceiptStatus.CANCELLED,
            ReceiptStatus.UNKNOWN, ReceiptStatus.NOT_APPLIED);

    private final String bootstrap;
    private final String prefix;
    private final String taskId;
    private final Random random;
    private final KeyPair keys;
    private final KafkaProducer<String, byte[]> murmur2;
    private final KafkaProducer<String, byte[]> crc32;
    private final Map<String, Action> actions = new ConcurrentHashMap<>();
    private final List<Action> ordered = new CopyOnWriteArrayList<>();
    private final Set<String> decided = ConcurrentHashMap.newKeySet();
    /** {@link Kind#AWAITING_HUMAN} actions waiting for their approval, oldest first. */
    private final java.util.Deque<Action> held = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread watcher;
    private volatile ServiceApprover service;
    private volatile long decisionsSent;
    private volatile long proposalsSent;
    private int next;

    Load(String bootstrap, String prefix, String taskId, long seed) {
        this.bootstrap = bootstrap;
        this.prefix = prefix;
        this.taskId = taskId;
        this.random = new Random(seed ^ 0x5DEECE66DL);
        try {
            this.keys = KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no " + DecisionSigning.ALGORITHM, e);
        }
        this.murmur2 = producer(bootstrap, null);
        this.crc32 = producer(bootstrap, Crc32Partitioner.class.getName());
        this.watcher = new Thread(this::watch, "chaos-approver");
        this.watcher.setDaemon(true);
    }

    private static KafkaProducer<String, byte[]> producer(String bootstrap, String partitioner) {
        KafkaClients.ProducerSpec spec = KafkaClients.of(bootstrap, Map.of())
                .producer(partitioner == null ? "chaos-load" : "chaos-load-partitioned")
                .defaultTo(ProducerConfig.LINGER_MS_CONFIG, 5)
                // ride out a broker restart: the records wait in the buffer instead of failing
                .defaultTo(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000)
                .defaultTo(ProducerConfig.MAX_BLOCK_MS_CONFIG, 600_000)
                .defaultTo(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        if (partitioner != null) {
            spec.defaultTo(ProducerConfig.PARTITIONER_CLASS_CONFIG, partitioner);
        }
        return spec.create(new StringSerializer(), new ByteArraySerializer());
    }

    String trustedKeyConfig() {
        return KEY_ID + "=" + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded());
    }

    void publishPolicy() throws Exception {
        Map<String, PolicyRecord> p = policy();
        List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
        p.forEach((key, value) -> acks.add(murmur2.send(new ProducerRecord<>(Topics.POLICY.name(prefix), key,
                Topics.POLICY.valueSerde().serializer().serialize(null, value)))));
        murmur2.flush();
        for (java.util.concurrent.Future<?> ack : acks) {
            ack.get();
        }
    }

    /**
     * The run's policy as the JSON of {@code actiongate policy put --file} (one object per record: key, kind and the
     * body's fields): what an upgrade run has the previous release's command line write, as its operator would.
     */
    String policyJson() {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.node.ArrayNode out = json.createArrayNode();
        // the records are copied field by field as data, by their schema: no policy question is asked of them here
        policy().forEach((key, record) -> {
            com.fasterxml.jackson.databind.node.ObjectNode o = out.addObject();
            o.put("key", key);
            o.put("kind", String.valueOf(record.get("kind")));
            org.apache.avro.specific.SpecificRecordBase body = (org.apache.avro.specific.SpecificRecordBase)
                    record.get("body");
            for (org.apache.avro.Schema.Field f : body.getSchema().getFields()) {
                Object v = body.get(f.pos());
                if (v instanceof List<?> list) {
                    com.fasterxml.jackson.databind.node.ArrayNode a = o.putArray(f.name());
                    list.forEach(item -> a.add(item.toString()));
                } else if (v instanceof Boolean b) {
                    o.put(f.name(), b);
                } else if (v instanceof Number n) {
                    o.put(f.name(), n.longValue());
                } else if (v != null) {
                    o.put(f.name(), v.toString());
                }
            }
        });
        return out.toPrettyString();
    }

    private Map<String, PolicyRecord> policy() {
        Map<String, PolicyRecord> p = new LinkedHashMap<>();
        p.put(PolicyKey.epochKey(ORG), record("epoch", AuthorizationEpoch.newBuilder().setOrgId(ORG).setEpoch(1).build()));
        p.put(PolicyKey.taskKey(taskId), record("task", TaskState.newBuilder().setTaskId(taskId).setVersion(1)
                .setStatus(LifecycleStatus.ACTIVE).setOrgId(ORG).build()));
        p.put(PolicyKey.grantKey(ORG, PROFILE), record("grant", Grant.newBuilder().setOrgId(ORG).setProfileId(PROFILE)
                .setTools(List.of(READ_TOOL, SEND_TOOL, McpLoad.TOOL)).setMode(GrantMode.FULL_ACCESS).setChatEnabled(true)
                .build()));
        p.put(PolicyKey.integrationKey(ORG, PROVIDER), record("integration", Integration.newBuilder().setOrgId(ORG)
                .setProvider(PROVIDER).setEnabled(true).setScopes(List.of(READ_TOOL, SEND_TOOL)).build()));
        // the MCP gateway's upstream: its tools run on provider mcp (their descriptors come from McpImport)
        p.put(PolicyKey.integrationKey(ORG, MCP_PROVIDER), record("integration", Integration.newBuilder()
                .setOrgId(ORG).setProvider(MCP_PROVIDER).setEnabled(true).setScopes(List.of(McpLoad.TOOL)).build()));
        p.put(PolicyKey.toolKey(PROVIDER, READ_TOOL), record("tool", tool(READ_TOOL).setReadOnlyHint(true)
                .setIdempotentHint(true).setApproval(ApprovalMode.NONE).build()));
        p.put(PolicyKey.toolKey(PROVIDER, SEND_TOOL), record("tool", tool(SEND_TOOL).setReadOnlyHint(false)
                .setApproval(ApprovalMode.HUMAN).build()));
        return p;
    }

    private static ToolDescriptor.Builder tool(String name) {
        return ToolDescriptor.newBuilder().setProvider(PROVIDER).setToolName(name).setOperation(name)
                .setSchemaHash(SCHEMA_HASH).setDestructiveHint(false).setIdempotentHint(null).setOpenWorldHint(false)
                .setMaxInputBytes(4096).setEnabled(true);
    }

    private static PolicyRecord record(String kind, Object body) {
        return PolicyRecord.newBuilder().setKind(kind).setBody(body).build();
    }

    void startWatcher() {
        watcher.start();
    }

    /** Submits one action of a seeded kind; returns it. */
    synchronized Action submit() {
        int i = next++;
        int roll = random.nextInt(100);
        Kind kind = roll < 35 ? Kind.READ : roll < 60 ? Kind.APPROVED : roll < 75 ? Kind.REJECTED
                : roll < 87 ? Kind.CONFLICTING : Kind.REDELIVERED;
        return submit(i, kind);
    }

    /** Submits the next action, of {@code kind} (an upgrade run's kinds). */
    synchronized Action submit(Kind kind) {
        return submit(next++, kind);
    }

    /**
     * Submits the next action, of one of an upgrade run's kinds, after {@code beforeSend} was given the idempotency
     * key its proposal carries (to aim the provider's faults at it first), in one step: the pacing thread submits
     * too, and must not take the number in between.
     */
    synchronized Action submit(Kind kind, java.util.function.Consumer<String> beforeSend) {
        int i = next++;
        beforeSend.accept(ownKey("c" + i));
        return submit(i, kind);
    }

    private static String ownKey(String callId) {
        return "ik-" + callId;
    }

    /** Submits action {@code i} of {@code kind}. */
    synchronized Action submit(int i, Kind kind) {
        String callId = "c" + i;
        String tool = kind.readTool() ? READ_TOOL : SEND_TOOL;
        String marker = INPUT_MARKER + callId + "-" + HexFormat.of().formatHex(randomBytes(8));
        ActionProposal proposal = proposal(callId, tool, marker, kind.ownKey() ? ownKey(callId) : null);
        String key = ActionKey.format(taskId, callId);
        Action action = new Action(key, callId, kind, tool, marker, System.currentTimeMillis(), proposal);
        actions.put(key, action);
        ordered.add(action);
        boolean viaCrc = random.nextBoolean();
        send(viaCrc ? crc32 : murmur2, Topics.PROPOSALS.name(prefix), key,
                Topics.PROPOSALS.valueSerde().serializer().serialize(null, proposal), action);
        proposalsSent++;
        if (kind == Kind.REDELIVERED) {
            send(viaCrc ? murmur2 : crc32, Topics.PROPOSALS.name(prefix), key,
                    Topics.PROPOSALS.valueSerde().serializer().serialize(null, proposal), null);
            proposalsSent++;
        } else if (kind == Kind.CONFLICTING) {
            ActionProposal other = proposal(callId, tool, INPUT_MARKER + callId + "-conflict-"
                    + HexFormat.of().formatHex(randomBytes(8)), null);
            send(viaCrc ? murmur2 : crc32, Topics.PROPOSALS.name(prefix), key,
                    Topics.PROPOSALS.valueSerde().serializer().serialize(null, other), null);
            proposalsSent++;
        }
        return action;
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private ActionProposal proposal(String callId, String tool, String marker, String idempotencyKey) {
        String input = "{\"channel\":\"chaos\",\"note\":\"" + marker + "\"}";
        return ActionProposal.newBuilder()
                .setTaskId(taskId).setToolCallId(callId).setTaskVersion(1).setOrgId(ORG).setPrincipalId("agent-host")
                .setProfileId(PROFILE).setAuthorizationEpoch(1).setProvider(PROVIDER).setOperation(tool)
                .setToolName(tool).setToolSchemaHash(SCHEMA_HASH).setInputJson(input)
                .setInputDigest(Digests.inputDigest(input))
                .setSummary("chaos action " + callId)
                .setIdempotencyKey(idempotencyKey).setBusinessOperationId(null).setOrigin(null)
                .setAttachments(List.of())
                .setClaimedAnnotations(null).setProposedAt(Instant.now())
                .build();
    }

    private static void send(KafkaProducer<String, byte[]> producer, String topic, String key, byte[] value,
                             Action acked) {
        producer.send(new ProducerRecord<>(topic, key, value), (metadata, error) -> {
            if (error == null && acked != null) {
                acked.acked = true;
            }
        });
    }

    private Decision decision(ActionProposal p, DecisionType type, Duration validFor) {
        return decision(p.getToolCallId(), type, Digests.actionDigest(FrozenAction.of(p)), validFor);
    }

    private Decision decision(String callId, DecisionType type, String actionDigest, Duration validFor) {
        Instant now = Instant.now();
        Decision unsigned = Decision.newBuilder().setDecisionId("d-" + callId).setTaskId(taskId)
                .setToolCallId(callId).setType(type)
                .setActionDigest(actionDigest).setApproverSubject(APPROVER)
                .setApproverOrg(ORG).setAuthMethod("chaos").setIssuedAt(now)
                .setExpiresAt(now.plus(validFor)).setKeyId(KEY_ID)
                .setSignature(ByteBuffer.allocate(0)).build();
        return DecisionSigning.sign(unsigned, keys.getPrivate());
    }

    private void watch() {
        try (KafkaConsumer<String, byte[]> consumer = KafkaClients.of(bootstrap, Map.of())
                .consumer("chaos-load-receipts").set(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest")
                .create(new StringDeserializer(), new ByteArrayDeserializer())) {
            String topic = Topics.RECEIPTS.name(prefix);
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofMinutes(5))
                    .forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (running.get()) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    Receipt receipt = Topics.RECEIPTS.valueSerde().deserializer().deserialize(topic, r.value());
                    onReceipt(r.key(), receipt);
                }
            }
        } catch (org.apache.kafka.common.errors.InterruptException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void onReceipt(String key, Receipt receipt) {
        Action action = actions.get(key);
        if (action == null) {
            return;
        }
        ReceiptStatus status = receipt.getStatus();
        action.lastStatus = status.name();
        if (SETTLED.contains(status) && action.settledAtMs == 0) {
            action.settledAtMs = System.currentTimeMillis();
        }
        if (SETTLED.contains(status)) {
            action.settledStatus = status.name();
        }
        if (status == ReceiptStatus.WAITING_APPROVAL && action.kind == Kind.AWAITING_HUMAN) {
            if (!decided.contains(key) && !held.contains(action)) {
                held.add(action); // decided by releaseHeld, after the upgrade
            }
            return;
        }
        if (status == ReceiptStatus.WAITING_APPROVAL && decided.add(key)) {
            DecisionType type = action.kind == Kind.REJECTED ? DecisionType.REJECT : DecisionType.APPROVE;
            ServiceApprover s = service;
            if (s != null && (action.kind == Kind.APPROVED || action.kind == Kind.REJECTED)
                    && s.offer(action, type.name())) {
                action.viaService = true;
                action.decision = type.name();
                action.decidedAtMs = System.currentTimeMillis();
                return;
            }
            sign(key, action, type);
        }
    }

    /**
     * Approves up to {@code n} of the {@link Kind#AWAITING_HUMAN} actions waiting now: through the approval
     * service's people when {@code throughService} (each needs a person and a fresh one-time code), else signed by
     * this load. Returns them.
     */
    List<Action> releaseHeld(int n, boolean throughService) {
        List<Action> released = new ArrayList<>();
        while (released.size() < n) {
            Action a = held.poll();
            if (a == null) {
                break;
            }
            if (!decided.add(a.key)) {
                continue;
            }
            ServiceApprover s = service;
            if (throughService && s != null) {
                s.hand(a, DecisionType.APPROVE.name());
                a.viaService = true;
                a.decision = DecisionType.APPROVE.name();
                a.decidedAtMs = System.currentTimeMillis();
            } else {
                sign(a.key, a, DecisionType.APPROVE);
            }
            released.add(a);
        }
        return released;
    }

    /** {@link Kind#AWAITING_HUMAN} actions waiting for {@link #releaseHeld} now. */
    int held() {
        return held.size();
    }

    /** Signs and sends the decision of {@code action} with this load's key (twice for a redelivered one). */
    private synchronized void sign(String key, Action action, DecisionType type) {
        Duration validFor = action.kind == Kind.EXPIRING ? SHORT_APPROVAL : Duration.ofDays(1);
        action.decision = type.name();
        action.decidedAtMs = System.currentTimeMillis();
        byte[] value = Topics.DECISIONS.valueSerde().serializer().serialize(null,
                decision(action.proposal, type, validFor));
        boolean viaCrc = (action.callId.hashCode() & 1) == 1;
        send(viaCrc ? crc32 : murmur2, Topics.DECISIONS.name(prefix), key, value, null);
        decisionsSent++;
        if (action.kind == Kind.REDELIVERED) {
            // the approver's client retried: the same signed decision again, through the other producer
            send(viaCrc ? murmur2 : crc32, Topics.DECISIONS.name(prefix), key, value, null);
            decisionsSent++;
        }
    }

    /**
     * Approves the MCP call {@code callId} of this load's task: the digest is the one the gateway answered with
     * {@code WAITING_APPROVAL} (the gateway built the proposal, so the load never saw it).
     */
    synchronized void approve(String callId, String actionDigest) {
        send(murmur2, Topics.DECISIONS.name(prefix), ActionKey.format(taskId, callId),
                Topics.DECISIONS.valueSerde().serializer().serialize(null,
                        decision(callId, DecisionType.APPROVE, actionDigest, Duration.ofDays(1))), null);
        decisionsSent++;
    }

    /** From now on, approvals and rejections go to the approval service's people while one is free. */
    void decideThrough(ServiceApprover s) {
        s.fallback(a -> sign(a.key, a, a.kind == Kind.REJECTED ? DecisionType.REJECT : DecisionType.APPROVE));
        this.service = s;
    }

    String taskId() {
        return taskId;
    }

    java.security.PublicKey publicKey() {
        return keys.getPublic();
    }

    List<Action> actions() {
        return List.copyOf(ordered);
    }

    long proposalsSent() {
        return proposalsSent;
    }

    long decisionsSent() {
        return decisionsSent;
    }

    /** Actions whose proposal was acknowledged and which have no settled receipt yet. */
    long unsettled() {
        return ordered.stream().filter(a -> a.acked && a.settledAtMs == 0).count();
    }

    void flush() {
        murmur2.flush();
        crc32.flush();
    }

    @Override
    public void close() {
        running.set(false);
        try {
            watcher.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        murmur2.close(Duration.ofSeconds(30));
        crc32.close(Duration.ofSeconds(30));
    }
}
