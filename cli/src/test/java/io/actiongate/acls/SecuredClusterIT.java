package io.actiongate.acls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.approver.book.ActionBook;
import io.actiongate.approver.book.BookFeed;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.cli.Main;
import io.actiongate.client.ActionGateClient;
import io.actiongate.client.ProposalHandle;
import io.actiongate.client.ProposalRequest;
import io.actiongate.client.ReceiptState;
import io.actiongate.client.Until;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.mcp.GatewayConfig;
import io.actiongate.mcp.McpGateway;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.sandbox.SandboxMcpServer;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.serde.AvroSetup;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * Every role on a secured broker (SASL_SSL/SCRAM and mTLS, ACLs enforced, nothing allowed by default) as its own
 * principal holding only the ACLs of {@link RoleAcls}, granted with {@code actiongate acls --apply}: the flow works,
 * and each boundary holds.
 * System tier: a secured broker and every role as its own principal, end to end.
 */
@Tag("system")
class SecuredClusterIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.secured();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PREFIX = "secured.";
    private static final String ORG = "acme";
    private static final String TASK = "T-1";
    private static final String TOOL = "post_update";
    private static final String SCHEMA = "sha256:schema-v1";
    private static final String KEY_ID = "owner-key";
    private static final Duration WAIT = Duration.ofSeconds(45);

    @TempDir
    static Path dir;

    private static SandboxWebhookProvider sandbox;
    private static KeyFiles.GeneratedKey ownerKey;
    private static Path baseConfig;
    private static final Map<String, Map<String, Object>> PRINCIPALS = new HashMap<>();

    private final List<AutoCloseable> started = new ArrayList<>();

    @BeforeAll
    static void clusterWithOnePrincipalPerRole() throws Exception {
        AvroSetup.install();
        sandbox = SandboxWebhookProvider.start();
        ownerKey = KeyFiles.generate(dir, KEY_ID);
        new TopicsCreator(KAFKA.admin(), 30_000).create(TopicsCreator.Plan.of(PREFIX, 2, (short) 1));
        baseConfig = write("actiongate.properties", Map.of(
                "topic.prefix", PREFIX,
                "application.id", "secured-gate",
                "executor.group.id", "secured-executor",
                "reconciler.group.id", "secured-reconciler"));
        Path admin = writeClient("admin", KAFKA.clientProperties());

        // SCRAM for most, mTLS for two: both listeners carry a role
        PRINCIPALS.put("gate", KAFKA.scramClient("gate"));
        PRINCIPALS.put("executor", KAFKA.tlsClient("executor"));
        PRINCIPALS.put("reconciler", KAFKA.scramClient("reconciler"));
        PRINCIPALS.put("approver", KAFKA.scramClient("approver"));
        PRINCIPALS.put("tool-host", KAFKA.scramClient("toolhost"));
        PRINCIPALS.put("operator", KAFKA.tlsClient("operator"));
        PRINCIPALS.put("mcp-gateway", KAFKA.scramClient("gateway"));
        PRINCIPALS.put("notifier", KAFKA.scramClient("notifier"));
        Map<String, String> users = Map.of("gate", "gate", "executor", "executor", "reconciler", "reconciler",
                "approver", "approver", "tool-host", "toolhost", "operator", "operator", "mcp-gateway", "gateway",
                "notifier", "notifier");
        for (Map.Entry<String, String> role : users.entrySet()) {
            writeClient(role.getKey(), PRINCIPALS.get(role.getKey()));
            Result applied = cli("acls", "--role", role.getKey(), "--principal", "User:" + role.getValue(),
                    "--config", baseConfig.toString(), "--kafka-config", admin.toString(), "--apply");
            assertThat(applied.code()).as(applied.err()).isZero();
        }
    }

    @AfterAll
    static void stopSandbox() {
        if (sandbox != null) {
            sandbox.close();
        }
    }

    @AfterEach
    void stopRoles() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    @Test
    void shouldRunTheWholeFlowWithEveryRoleHoldingOnlyItsOwnAcls() throws Exception {
        Result policy = cli("policy", "put", "--file", policyFile().toString(), "--config", baseConfig.toString(),
                "--kafka-config", clientFile("operator").toString());
        assertThat(policy.code()).as(policy.err()).isZero();
        startRole("gate", "gate");
        startRole("executor", "executor");
        startRole("reconciler", "reconciler");
        // the notifier: reads receipts, proposals and its route, claims in its own topic, tells a JSON webhook
        startRole("notifier", "notifier", Map.of("notifier.review.url", "https://approve.acme.example/review/"
                + "{task_id}/{tool_call_id}", "notifier.check.interval", "200ms",
                "notifier.webhook.audit.url", sandbox.baseUri() + "/notices"));

        // the client library as the tool host: proposes, and sees its receipt
        ActionGateClient client = ActionGateClient.builder().kafkaProperties(PRINCIPALS.get("tool-host"))
                .topicPrefix(PREFIX).build();
        started.add(client);
        ProposalHandle handle = client.propose(request("c-1"), Until.WAITING_APPROVAL, WAIT);
        assertThat(handle.await().state()).isEqualTo(ReceiptState.WAITING_APPROVAL);
        // the CLI as the tool host, given only --kafka-config
        Result proposed = cli("propose", "--file", proposalFile("c-2").toString(), "--prefix", PREFIX,
                "--kafka-config", clientFile("tool-host").toString());
        assertThat(proposed.code()).as(proposed.err()).isZero();

        // the approver: its feed reads the action history, its decision reaches the gate
        BookFeed feed = new BookFeed(String.valueOf(PRINCIPALS.get("approver").get("bootstrap.servers")),
                strings(PRINCIPALS.get("approver")), PREFIX, new ActionBook()).start();
        started.add(feed);
        assertThat(feed.awaitCaughtUp(WAIT)).as("approver feed caught up").isTrue();
        assertThat(feed.failure()).isNull();
        Result decided = cli("decide", TASK, "c-1", "--type", "APPROVE", "--key", ownerKey.privateKeyFile().toString(),
                "--approver", "owner@acme", "--org", ORG, "--digest", handle.actionDigest(), "--prefix", PREFIX,
                "--kafka-config", clientFile("approver").toString());
        assertThat(decided.code()).as(decided.err()).isZero();

        // gate -> executor -> provider -> gate; the operator reads the receipt with the CLI
        await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Result receipts = cli("receipts", "--json", "--config", baseConfig.toString(), "--kafka-config",
                    clientFile("operator").toString());
            assertThat(receipts.code()).as(receipts.err()).isZero();
            assertThat(receiptStates(receipts.out(), "c-1")).contains("SUCCEEDED");
            assertThat(receiptStates(receipts.out(), "c-2")).contains("WAITING_APPROVAL");
        });
        assertThat(sandbox.requestTimes("idem-c-1")).hasSize(1);
        await().atMost(WAIT).until(() -> sandbox.requestsByKey().keySet().stream()
                .anyMatch(k -> k.startsWith("first/" + TASK + "/c-2/")));
        assertThat(started).allSatisfy(role -> {
            if (role instanceof ActiongateNode node) {
                assertThat(node.failure()).isEmpty();
            }
        });
    }

    @Test
    void shouldImportToolsAsTheOperatorAndRunTheMcpGatewayAsItsOwnPrincipal() throws Exception {
        SandboxMcpServer upstream = SandboxMcpServer.start();
        started.add(upstream);
        Path tokens = Files.writeString(dir.resolve("tokens"), "host-token-0123456789abcdef user-1 " + ORG
                + " chat-default\n");
        Map<String, String> gateway = new HashMap<>(flat(baseConfig));
        gateway.put(GatewayConfig.HOST_CONFIG, "127.0.0.1");
        gateway.put(GatewayConfig.PORT_CONFIG, "0");
        gateway.put(GatewayConfig.TOKENS_FILE_CONFIG, tokens.toString());
        gateway.put(GatewayConfig.REVIEW_URL_CONFIG, "http://127.0.0.1/actions/{action_key}");
        gateway.put(GatewayConfig.UPSTREAMS_CONFIG, "sandbox");
        gateway.put(GatewayConfig.UPSTREAM_PREFIX + "sandbox.url", upstream.url());
        gateway.put(GatewayConfig.UPSTREAM_PREFIX + "sandbox.provider", "webhook");
        Path gatewayFile = write("gateway.properties", gateway);

        // mcp import is an operator's act: the operator's principal, given only --kafka-config
        Result imported = cli("mcp", "import", "--config", gatewayFile.toString(), "--kafka-config",
                clientFile("operator").toString(), "--upstream", "sandbox", "--trust", SandboxMcpServer.READ_TOOL);
        assertThat(imported.code()).as(imported.err()).isZero();
        assertThat(keys(Topics.POLICY.name(PREFIX))).contains("tool:webhook:" + SandboxMcpServer.READ_TOOL);
        // the gateway may not do the operator's part
        Result asGateway = cli("mcp", "import", "--config", gatewayFile.toString(), "--kafka-config",
                writeClient("mcp-gateway", PRINCIPALS.get("mcp-gateway")).toString(), "--upstream", "sandbox",
                "--trust", SandboxMcpServer.READ_TOOL);
        assertThat(asGateway.code()).isEqualTo(1);
        assertThat(asGateway.err()).contains("may not WRITE topic " + PREFIX + "policy");

        // the gateway's client library and policy view run with the mcp-gateway ACLs alone
        PRINCIPALS.get("mcp-gateway").forEach((k, v) -> gateway.put(k.equals("bootstrap.servers") ? k : "kafka." + k,
                String.valueOf(v)));
        McpGateway running = McpGateway.start(GatewayConfig.from(gateway));
        started.add(running);
        assertThat(running.port()).isPositive();
        assertThatThrownBy(() -> send(PRINCIPALS.get("mcp-gateway"), Topics.DECISIONS.name(PREFIX), "T-gw/x"))
                .hasCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void shouldDenyTheToolHostEveryWriteButProposalsAndWriteNothing() throws Exception {
        String key = "T-denied/tool-host";
        for (TopicSpec<?, ?> topic : List.of(Topics.DECISIONS, Topics.POLICY, Topics.ATTEMPTS, Topics.OUTCOMES,
                Topics.RECONCILIATIONS, Topics.RECEIPTS)) {
            assertThatThrownBy(() -> send(PRINCIPALS.get("tool-host"), topic.name(PREFIX), key))
                    .as(topic.name(PREFIX)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        // the operator's commands, run with the tool host's credentials, fail naming the topic and the operation
        Result decided = cli("decide", TASK, "denied", "--type", "APPROVE", "--key",
                ownerKey.privateKeyFile().toString(), "--approver", "owner@acme", "--org", ORG, "--digest",
                "sha256:" + "d".repeat(64), "--prefix", PREFIX, "--kafka-config", clientFile("tool-host").toString());
        Result policy = cli("policy", "put", "--file", policyFile().toString(), "--prefix", PREFIX,
                "--kafka-config", clientFile("tool-host").toString());

        assertThat(decided.code()).isEqualTo(1);
        assertThat(decided.err()).contains("authorization failed: this principal may not WRITE topic "
                + PREFIX + "decisions").doesNotContain("\tat ");
        assertThat(policy.code()).isEqualTo(1);
        assertThat(policy.err()).contains("may not WRITE topic " + PREFIX + "policy");
        for (TopicSpec<?, ?> topic : List.of(Topics.DECISIONS, Topics.POLICY, Topics.ATTEMPTS, Topics.OUTCOMES,
                Topics.RECONCILIATIONS)) {
            assertThat(keys(topic.name(PREFIX))).as(topic.name(PREFIX)).doesNotContain(key);
        }
        assertThat(keys(Topics.DECISIONS.name(PREFIX))).doesNotContain(TASK + "/denied");
    }

    @Test
    void shouldLetTheApproverWriteDecisionsAndNothingElse() throws Exception {
        String key = "T-approver/only-decisions";
        send(PRINCIPALS.get("approver"), Topics.DECISIONS.name(PREFIX), key);
        for (TopicSpec<?, ?> topic : List.of(Topics.PROPOSALS, Topics.POLICY, Topics.ATTEMPTS, Topics.OUTCOMES,
                Topics.RECONCILIATIONS, Topics.RECEIPTS, Topics.CONFLICTS)) {
            assertThatThrownBy(() -> send(PRINCIPALS.get("approver"), topic.name(PREFIX), key))
                    .as(topic.name(PREFIX)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        assertThat(keys(Topics.DECISIONS.name(PREFIX))).contains(key);
        assertThat(keys(Topics.PROPOSALS.name(PREFIX))).doesNotContain(key);
    }

    @Test
    void shouldFailARoleAtStartNamingTheAclItLacks() throws Exception {
        Map<String, String> config = new HashMap<>(flat(baseConfig));
        // an executor without its group ACL
        Map<String, Object> executor = KAFKA.scramClient("executor-without-group");
        grant(RoleAcls.Role.EXECUTOR, "User:executor-without-group", config, ResourceType.GROUP, null);
        ActiongateNode node = ActiongateNode.start(roleConfig(executor), Role.parse("executor"));
        started.add(node);
        await().atMost(WAIT).until(() -> node.failure().isPresent());
        assertThat(node.failure().orElseThrow())
                .contains("may not READ consumer group secured-executor");

        // a gate that may not read decisions does not start, and says which topic
        Map<String, Object> gate = KAFKA.scramClient("gate-without-decisions");
        grant(RoleAcls.Role.GATE, "User:gate-without-decisions", config, ResourceType.TOPIC, PREFIX + "decisions");
        assertThatThrownBy(() -> started.add(ActiongateNode.start(roleConfig(gate), Role.parse("gate"))))
                .hasMessageContaining("may not DESCRIBE topic " + PREFIX + "decisions");
    }

    @Test
    void shouldStopAGateWhoseConsumerGroupIsDeniedNamingTheGroup() throws Exception {
        Map<String, String> config = new HashMap<>(flat(baseConfig));
        config.put("application.id", "secured-gate-without-group");
        Map<String, Object> gate = KAFKA.scramClient("gate-without-group");
        grant(RoleAcls.Role.GATE, "User:gate-without-group", config, ResourceType.GROUP, null);
        Map<String, String> roleConfig = roleConfig(gate);
        roleConfig.put("application.id", "secured-gate-without-group");

        ActiongateNode node = ActiongateNode.start(roleConfig, Role.parse("gate"));
        started.add(node);

        await().atMost(WAIT).until(() -> node.failure().isPresent());
        assertThat(node.failure().orElseThrow()).contains("the gate's Kafka Streams stopped")
                .contains("may not READ consumer group secured-gate-without-group");
    }

    @Test
    void shouldNameEachSecurityFailureOfACommandWithoutVerbose() throws Exception {
        Map<String, Object> wrongPassword = KAFKA.scramClient("toolhost", "not-the-password");
        Map<String, Object> noJaas = new HashMap<>(PRINCIPALS.get("tool-host"));
        noJaas.remove("sasl.jaas.config");
        Map<String, Object> untrusted = new HashMap<>(PRINCIPALS.get("operator"));
        io.actiongate.testing.TestPki other = io.actiongate.testing.TestPki.create(dir.resolve("other-ca"));
        untrusted.put("ssl.truststore.location", other.truststore().toString());
        untrusted.put("ssl.truststore.password", other.password());

        Result auth = cli("receipts", "--prefix", PREFIX, "--kafka-config",
                writeClient("wrong-password", wrongPassword).toString());
        Result jaas = cli("receipts", "--prefix", PREFIX, "--kafka-config", writeClient("no-jaas", noJaas).toString());
        Result tls = cli("receipts", "--prefix", PREFIX, "--kafka-config",
                writeClient("untrusted", untrusted).toString());

        assertThat(auth.code()).isEqualTo(1);
        assertThat(auth.err()).contains("authentication failed").doesNotContain("not-the-password");
        assertThat(jaas.code()).isEqualTo(1);
        assertThat(jaas.err()).contains("missing JAAS configuration");
        assertThat(tls.code()).isEqualTo(1);
        assertThat(tls.err()).contains("TLS handshake failed").doesNotContain(other.password());
        assertThat(List.of(auth.err(), jaas.err(), tls.err())).allSatisfy(err ->
                assertThat(err).doesNotContain("\tat ").doesNotContain(KAFKA.pki().password()));
    }

    @Test
    void shouldLetTheOperatorCheckTheTopicsWithOnlyItsAcls() {
        Result topics = cli("topics", "create", "--config", baseConfig.toString(), "--partitions", "2",
                "--kafka-config", clientFile("operator").toString());
        Result asToolHost = cli("topics", "create", "--config", baseConfig.toString(), "--partitions", "2",
                "--kafka-config", clientFile("tool-host").toString());

        assertThat(topics.code()).as(topics.err()).isZero();
        assertThat(topics.out()).contains(PREFIX + "decisions");
        assertThat(asToolHost.code()).isEqualTo(1);
        assertThat(asToolHost.err()).contains("authorization failed");
    }

    /** Grants {@code role}'s ACLs except those on {@code type} (named {@code name}, or all of that type). */
    private static void grant(RoleAcls.Role role, String principal, Map<String, String> config, ResourceType type,
                              String name) throws Exception {
        List<AclBinding> bindings = RoleAcls.bindings(role, principal, config).stream()
                .filter(b -> !(b.pattern().resourceType() == type && (name == null || b.pattern().name().equals(name))))
                .toList();
        assertThat(bindings).noneMatch(b -> b.entry().operation() == AclOperation.ALL);
        KAFKA.admin().createAcls(bindings).all().get(30, TimeUnit.SECONDS);
    }

    private void startRole(String principal, String roles) {
        startRole(principal, roles, Map.of());
    }

    private void startRole(String principal, String roles, Map<String, String> extra) {
        Map<String, String> config = roleConfig(PRINCIPALS.get(principal));
        config.putAll(extra);
        ActiongateNode node = ActiongateNode.start(config, Role.parse(roles));
        started.add(node);
        await().atMost(Duration.ofSeconds(60)).until(() -> node.ready() || node.failure().isPresent());
        assertThat(node.failure()).as(roles).isEmpty();
    }

    /** The shared settings plus one principal's client settings as {@code kafka.*}. */
    private Map<String, String> roleConfig(Map<String, Object> client) {
        Map<String, String> c = new HashMap<>(flat(baseConfig));
        client.forEach((k, v) -> c.put(k.equals("bootstrap.servers") ? k : "kafka." + k, String.valueOf(v)));
        c.put("state.dir", dir.resolve("state-" + started.size()).toString());
        c.put("http.port", "0");
        c.put("http.bind.address", "127.0.0.1");
        c.put("node.shutdown.timeout.ms", "5000");
        c.put("gate.trusted.keys", KEY_ID + "=" + Base64.getEncoder().encodeToString(
                ownerKey.publicKey().getEncoded()));
        c.put("gate.streams.commit.interval.ms", "100");
        c.put("executor.poll.timeout", "100");
        c.put("reconciler.poll.timeout", "100");
        c.put("connectors.webhook.base-url", sandbox.baseUri().toString());
        c.put("connectors.webhook.operations", TOOL);
        return c;
    }

    private static ProposalRequest request(String call) {
        return ProposalRequest.builder().action(TASK, call).taskVersion(1).authorizationEpoch(1)
                .identity(ORG, "user-1").profile("chat-default").tool("webhook", TOOL, TOOL, SCHEMA)
                .input("{\"text\":\"deploy finished\"}").summary("Post that the deploy finished")
                .idempotencyKey("idem-" + call).build();
    }

    private static Path proposalFile(String call) throws IOException {
        return Files.writeString(dir.resolve("proposal-" + call + ".json"), """
                {"task_id": "%s", "tool_call_id": "%s", "task_version": 1, "org_id": "%s", "principal_id": "user-1",
                 "profile_id": "chat-default", "authorization_epoch": 1, "provider": "webhook", "operation": "%s",
                 "tool_name": "%s", "tool_schema_hash": "%s", "input": {"text": "second"},
                 "summary": "Post a second update", "idempotency_key": "idem-%s"}""".formatted(TASK, call, ORG, TOOL,
                TOOL, SCHEMA, call));
    }

    private static Path policyFile() throws IOException {
        return Files.writeString(dir.resolve("policy.json"), """
                [{"key": "epoch:%1$s", "kind": "epoch", "epoch": 1},
                 {"key": "task:%2$s", "kind": "task", "org_id": "%1$s", "version": 1, "status": "ACTIVE"},
                 {"key": "grant:%1$s:chat-default", "kind": "grant", "tools": ["%3$s"], "mode": "FULL_ACCESS",
                  "chat_enabled": true},
                 {"key": "integration:%1$s:webhook", "kind": "integration", "enabled": true, "scopes": ["%3$s"]},
                 {"key": "tool:webhook:%3$s", "kind": "tool", "operation": "%3$s", "schema_hash": "%4$s",
                  "read_only_hint": false, "destructive_hint": false, "approval": "HUMAN", "max_input_bytes": 4096,
                  "enabled": true},
                 {"key": "notify:%1$s:*:*", "kind": "notify", "json_webhooks": ["audit"]}]""".formatted(ORG, TASK,
                TOOL, SCHEMA));
    }

    private static List<String> receiptStates(String jsonLines, String call) throws IOException {
        List<String> states = new ArrayList<>();
        for (String line : jsonLines.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode receipt = JSON.readTree(line);
            if (call.equals(receipt.path("tool_call_id").asText())) {
                states.add(receipt.path("status").asText());
            }
        }
        return states;
    }

    private static void send(Map<String, Object> client, String topic, String key) throws Exception {
        Map<String, Object> p = new HashMap<>(client);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, key, new byte[] {0})).get(30, TimeUnit.SECONDS);
        }
    }

    /** Every key on {@code topic}, read by the super user (uncommitted data included: nothing hides there). */
    private static List<String> keys(String topic) {
        Map<String, Object> p = new HashMap<>(KAFKA.clientProperties());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        List<String> keys = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    keys.add(r.key());
                }
            }
        }
        return keys;
    }

    private static Map<String, String> strings(Map<String, Object> client) {
        Map<String, String> s = new HashMap<>();
        client.forEach((k, v) -> {
            if (!k.equals("bootstrap.servers")) {
                s.put(k, String.valueOf(v));
            }
        });
        return s;
    }

    private static Map<String, String> flat(Path file) {
        try {
            Properties p = new Properties();
            try (var in = Files.newBufferedReader(file)) {
                p.load(in);
            }
            Map<String, String> m = new HashMap<>();
            p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
            return m;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Path clientFile(String role) {
        return dir.resolve(role + ".properties");
    }

    private static Path writeClient(String role, Map<String, Object> client) throws IOException {
        Map<String, String> s = new HashMap<>();
        client.forEach((k, v) -> s.put(k, String.valueOf(v)));
        return write(role + ".properties", s);
    }

    private static Path write(String name, Map<String, String> entries) throws IOException {
        Properties p = new Properties();
        p.putAll(entries);
        Path file = dir.resolve(name);
        try (Writer w = Files.newBufferedWriter(file)) {
            p.store(w, null);
        }
        return file;
    }

    record Result(int code, String out, String err) {
    }

    private static Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }
}
