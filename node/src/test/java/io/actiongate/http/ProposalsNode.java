package io.actiongate.http;

import static io.actiongate.executor.ItSupport.createTopics;
import static io.actiongate.executor.ItSupport.produce;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.key.ActionKey;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.serde.AvroSetup;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.topics.Topics;

/**
 * A real node for the HTTP tool host tests: gate and executor on the embedded broker, the webhook connector aimed at
 * a sandbox provider, tool host proposals on, and one org's policy (task {@value #TASK}, tool {@value #TOOL} needing a
 * human approval), plus a trusted key to sign decisions with, as a reviewer would.
 */
final class ProposalsNode implements AutoCloseable {

    static final String ORG = "acme";
    static final String TASK = "T-1";
    static final String TOOL = "send_email";
    static final String SCHEMA = "sha256:schema-v1";
    static final String KEY_ID = "owner-key";
    static final String REVIEW = "http://127.0.0.1:8081/review/";
    static final Duration WAIT = Duration.ofSeconds(90);

    final SandboxWebhookProvider sandbox;
    final ActiongateNode node;
    private final KeyPair ownerKey;
    private final String bootstrap;
    private final String prefix;

    private ProposalsNode(SandboxWebhookProvider sandbox, ActiongateNode node, KeyPair ownerKey, String bootstrap,
            String prefix) {
        this.sandbox = sandbox;
        this.node = node;
        this.ownerKey = ownerKey;
        this.bootstrap = bootstrap;
        this.prefix = prefix;
    }

    /**
     * Starts it under {@code prefix} (also its application id) with the tool host tokens of {@code hosts};
     * {@code extra} adds or overrides node settings.
     */
    static ProposalsNode start(KafkaBrokerExtension kafka, String prefix, Path dir, Path hosts,
            Map<String, String> extra) throws Exception {
        AvroSetup.install();
        // as in a node's main: the HTTP surface's read timeouts are set before any JDK HTTP server (the sandbox's
        // included) reads them
        Class.forName(GateHttpServer.class.getName(), true, ProposalsNode.class.getClassLoader());
        SandboxWebhookProvider sandbox = SandboxWebhookProvider.start();
        KeyPair ownerKey = KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        createTopics(kafka.admin(), prefix, 2);
        publishPolicy(kafka.bootstrapServers(), prefix);
        String application = prefix.replaceAll("[.]$", "");
        Map<String, String> c = new HashMap<>();
        c.put("bootstrap.servers", kafka.bootstrapServers());
        c.put("topic.prefix", prefix);
        c.put("application.id", application);
        c.put("executor.group.id", application + "-executor");
        c.put("state.dir", dir.resolve("state").toString());
        c.put("http.port", "0");
        c.put("http.bind.address", "127.0.0.1");
        c.put("http.proposals.tokens.file", hosts.toString());
        c.put("http.proposals.review.url", REVIEW + "{task_id}/{tool_call_id}");
        c.put("http.proposals.answer.timeout.ms", "30000");
        c.put("node.shutdown.timeout.ms", "5000");
        c.put("gate.trusted.keys", KEY_ID + "=" + Base64.getEncoder().encodeToString(
                ownerKey.getPublic().getEncoded()));
        c.put("gate.punctuate.interval", "200ms");
        c.put("gate.streams.commit.interval.ms", "100");
        c.put("executor.poll.timeout", "100");
        // fetches held at the broker no longer than the executor's poll: a stop waits out no held fetch
        c.put("executor.consumer.fetch.max.wait.ms", "100");
        c.put("gate.streams.consumer.fetch.max.wait.ms", "100");
        c.put("connectors.webhook.base-url", sandbox.baseUri().toString());
        c.put("connectors.webhook.operations", TOOL);
        c.putAll(extra);
        ActiongateNode node = ActiongateNode.start(c, Role.parse("gate,executor"));
        await().atMost(WAIT).until(node::ready);
        return new ProposalsNode(sandbox, node, ownerKey, kafka.bootstrapServers(), prefix);
    }

    int port() {
        return node.httpPort();
    }

    /** Signs a decision on the action's digest with the trusted key and publishes it, as the approval service does. */
    void decide(String task, String call, String actionDigest, DecisionType type) {
        Instant now = Instant.now();
        Decision decision = DecisionSigning.sign(Decision.newBuilder().setDecisionId("d-" + UUID.randomUUID())
                .setTaskId(task).setToolCallId(call).setType(type).setActionDigest(actionDigest)
                .setApproverSubject("owner@" + ORG).setApproverOrg(ORG).setAuthMethod("test").setIssuedAt(now)
                .setExpiresAt(now.plus(Duration.ofMinutes(5))).setKeyId(KEY_ID)
                .setSignature(java.nio.ByteBuffer.allocate(0)).build(), ownerKey.getPrivate());
        produce(bootstrap, Topics.DECISIONS.name(prefix), Topics.DECISIONS, Map.of(ActionKey.format(task, call),
                decision));
    }

    /** The org's epoch, its task, the profile's grant, the webhook integration and the tool's descriptor. */
    static void publishPolicy(String bootstrap, String prefix) {
        Map<String, PolicyRecord> policy = new HashMap<>();
        policy.put("epoch:" + ORG, record("epoch", AuthorizationEpoch.newBuilder().setOrgId(ORG).setEpoch(1).build()));
        policy.put("task:" + TASK, record("task", TaskState.newBuilder().setTaskId(TASK).setOrgId(ORG).setVersion(1)
                .setStatus(LifecycleStatus.ACTIVE).build()));
        policy.put("grant:" + ORG + ":chat-default", record("grant", Grant.newBuilder().setOrgId(ORG)
                .setProfileId("chat-default").setTools(List.of(TOOL)).setMode(GrantMode.FULL_ACCESS)
                .setChatEnabled(true).build()));
        policy.put("integration:" + ORG + ":webhook", record("integration", Integration.newBuilder().setOrgId(ORG)
                .setProvider("webhook").setEnabled(true).setScopes(List.of()).build()));
        policy.put("tool:webhook:" + TOOL, record("tool", ToolDescriptor.newBuilder().setProvider("webhook")
                .setToolName(TOOL).setOperation(TOOL).setSchemaHash(SCHEMA)
                .setReadOnlyHint(false).setDestructiveHint(null).setIdempotentHint(null).setOpenWorldHint(null)
                .setApproval(ApprovalMode.HUMAN).setMaxInputBytes(4096).setEnabled(true).build()));
        produce(bootstrap, Topics.POLICY.name(prefix), Topics.POLICY, policy);
    }

    private static PolicyRecord record(String kind, Object body) {
        return PolicyRecord.newBuilder().setKind(kind).setBody(body).build();
    }

    @Override
    public void close() {
        node.close();
        sandbox.close();
    }
}
