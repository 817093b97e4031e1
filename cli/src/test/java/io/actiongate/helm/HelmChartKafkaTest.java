package io.actiongate.helm;

import static io.actiongate.helm.ChartRender.container;
import static io.actiongate.helm.ChartRender.podSpec;
import static io.actiongate.helm.ChartRender.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.config.CommonConfig;
import io.actiongate.config.EnvironmentOverrides;
import io.actiongate.executor.ExecutorConfig;
import io.actiongate.gate.GateConfig;
import io.actiongate.reconciler.ReconcilerConfig;
import io.actiongate.topics.Topics;

/**
 * The chart on a shared, secured Kafka cluster: Strimzi KafkaUsers with least-privilege ACLs per role,
 * both Strimzi API versions, Kafka ids derived from the release, and RocksDB bounded by the gate's memory limit.
 */
class HelmChartKafkaTest {

    private static final String FULLNAME = ChartRender.RELEASE + "-actiongate";
    private static final String PREFIX = Topics.DEFAULT_PREFIX;
    private static final ConfigKeys KEYS = new ConfigKeys();
    /** The roles with a KafkaUser, as the chart names them in values (mcpGateway) and in resource names. */
    private static final Map<String, String> USERS = Map.of("gate", FULLNAME + "-gate",
            "executor", FULLNAME + "-executor", "reconciler", FULLNAME + "-reconciler",
            "approver", FULLNAME + "-approver", "mcpGateway", FULLNAME + "-mcp-gateway");

    private static Map<String, Object> secured(String authentication) {
        Map<String, Object> sets = new LinkedHashMap<>(everyRole());
        sets.put("kafkaUsers.enabled", true);
        sets.put("kafkaUsers.authentication", authentication);
        sets.put("topics.strimzi.enabled", true);
        sets.put("strimzi.clusterName", "my-cluster");
        return sets;
    }

    /** Values that enable the approval service and the MCP gateway besides the three default roles. */
    static Map<String, Object> everyRole() {
        Map<String, Object> sets = new LinkedHashMap<>();
        sets.put("approver.enabled", true);
        sets.put("approver.publicUrl", "https://approve.acme.example");
        sets.put("approver.oidc.issuer", "https://idp.acme.example/realms/acme");
        sets.put("approver.oidc.clientId", "actiongate-approver");
        sets.put("approver.signingKey.existingSecret", "approver-signing-key");
        sets.put("mcpGateway.enabled", true);
        sets.put("mcpGateway.hostTokens.existingSecret", "mcp-host-tokens");
        sets.put("mcpGateway.upstreams.notes.url", "http://notes:3000");
        sets.put("mcpGateway.upstreams.notes.provider", "webhook");
        return sets;
    }

    @Test
    void shouldRenderNoKafkaUserByDefault() {
        ChartRender defaults = ChartRender.render(Map.of());
        assertThat(defaults.ofKind("KafkaUser")).isEmpty();
        Map<String, String> config = properties(defaults.get("ConfigMap", FULLNAME));
        assertThat(config).doesNotContainKeys("kafka.security.protocol", "kafka.sasl.mechanism");
    }

    @Test
    void shouldRefuseKafkaUsersWithoutAClusterOrWithTheHookJob() {
        Map<String, Object> noCluster = secured("scram-sha-512");
        noCluster.remove("strimzi.clusterName");
        assertThatThrownBy(() -> ChartRender.render(noCluster)).hasMessageContaining("clusterName");
        Map<String, Object> withJob = secured("scram-sha-512");
        withJob.remove("topics.strimzi.enabled");
        assertThatThrownBy(() -> ChartRender.render(withJob)).hasMessageContaining("hook Job");
        assertThatThrownBy(() -> ChartRender.render(Map.of("kafkaUsers.authentication", "plain")))
                .hasMessageContaining("schema").hasMessageContaining("authentication");
    }

    @Test
    void shouldGiveEveryRoleItsOwnScramUserAndWireItsPodsToIt() {
        ChartRender render = ChartRender.render(secured("scram-sha-512"));
        assertThat(render.ofKind("KafkaUser")).hasSize(USERS.size());
        Map<String, String> config = properties(render.get("ConfigMap", FULLNAME));
        assertThat(config).containsEntry("kafka.security.protocol", "SASL_SSL")
                .containsEntry("kafka.sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("kafka.ssl.truststore.type", "PEM");
        assertThat(KEYS.unknown(config.keySet())).isEmpty();
        assertThat(new CommonConfig(config).kafkaClientProperties())
                .containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512");

        for (Map.Entry<String, String> role : USERS.entrySet()) {
            JsonNode user = render.get("KafkaUser", role.getValue());
            assertThat(user.path("apiVersion").asText()).isEqualTo("kafka.strimzi.io/v1");
            assertThat(user.path("metadata").path("labels").path("strimzi.io/cluster").asText())
                    .isEqualTo("my-cluster");
            assertThat(user.path("spec").path("authentication").path("type").asText()).isEqualTo("scram-sha-512");
            assertThat(user.path("spec").path("authorization").path("type").asText()).isEqualTo("simple");

            // the pod of the role takes the JAAS config from its own user's Secret, never another role's
            JsonNode workload = workload(render, role.getKey());
            JsonNode ref = env(workload, "ACTIONGATE_KAFKA_SASL_JAAS_CONFIG").path("valueFrom").path("secretKeyRef");
            assertThat(ref.path("name").asText()).as(role.getKey()).isEqualTo(role.getValue());
            assertThat(ref.path("key").asText()).isEqualTo("sasl.jaas.config");
            assertThat(volume(workload, "kafka-ca").path("secret").path("secretName").asText())
                    .isEqualTo("my-cluster-cluster-ca-cert");
            assertThat(config.get("kafka.ssl.truststore.location"))
                    .isEqualTo(mount(workload, "kafka-ca").path("mountPath").asText() + "/ca.crt");
        }
        assertThat(KEYS.unknown(Set.of(EnvironmentOverrides.toKey("ACTIONGATE_KAFKA_SASL_JAAS_CONFIG")))).isEmpty();
        // the chart renders no credential itself: the User Operator writes the Secrets
        assertThat(render.ofKind("Secret")).isEmpty();
    }

    @Test
    void shouldWireMutualTlsUsersThroughTheirKeystore() {
        Map<String, Object> sets = secured("tls");
        sets.put("kafkaUsers.clusterCaSecret", "-");
        ChartRender render = ChartRender.render(sets);
        Map<String, String> config = properties(render.get("ConfigMap", FULLNAME));
        assertThat(config).containsEntry("kafka.security.protocol", "SSL")
                .containsEntry("kafka.ssl.keystore.type", "PKCS12")
                .doesNotContainKeys("kafka.sasl.mechanism", "kafka.ssl.truststore.location");
        for (Map.Entry<String, String> role : USERS.entrySet()) {
            assertThat(render.get("KafkaUser", role.getValue()).path("spec").path("authentication").path("type")
                    .asText()).isEqualTo("tls");
            JsonNode workload = workload(render, role.getKey());
            assertThat(volume(workload, "kafka-user").path("secret").path("secretName").asText())
                    .isEqualTo(role.getValue());
            assertThat(config.get("kafka.ssl.keystore.location"))
                    .isEqualTo(mount(workload, "kafka-user").path("mountPath").asText() + "/user.p12");
            JsonNode ref = env(workload, "ACTIONGATE_KAFKA_SSL_KEYSTORE_PASSWORD").path("valueFrom")
                    .path("secretKeyRef");
            assertThat(ref.path("name").asText()).isEqualTo(role.getValue());
            assertThat(ref.path("key").asText()).isEqualTo("user.password");
            assertThat(volume(workload, "kafka-ca")).isNull();
        }
    }

    @Test
    void shouldGrantEachRoleOnlyTheTopicsItReadsAndWrites() {
        ChartRender render = ChartRender.render(secured("scram-sha-512"));
        Map<String, Map<String, Set<String>>> acls = new TreeMap<>();
        USERS.forEach((role, name) -> acls.put(role, topicOperations(render.get("KafkaUser", name))));

        // a tool host's principal writes proposals and nothing else of actiongate's
        assertThat(writes(acls.get("mcpGateway"))).containsExactly(PREFIX + "proposals");
        assertThat(reads(acls.get("mcpGateway"))).containsExactlyInAnyOrder(PREFIX + "receipts",
                PREFIX + "conflicts", PREFIX + "policy");
        // only the approval service writes decisions, and beside them only its own state
        assertThat(writes(acls.get("approver"))).containsExactlyInAnyOrder(PREFIX + "decisions",
                PREFIX + "approver-state");
        acls.forEach((role, ops) -> {
            if (!role.equals("approver")) {
                assertThat(writes(ops)).as(role).doesNotContain(PREFIX + "decisions");
            }
            // no role of the release writes policy: that is the operator's (policy put, mcp import)
            assertThat(writes(ops)).as(role).doesNotContain(PREFIX + "policy");
        });
        // every topic the gate produces has exactly one writer, the gate; the workers write only their results
        assertThat(writes(acls.get("gate"))).containsExactlyInAnyOrder(PREFIX + "attempts",
                PREFIX + "unknown-outcomes", PREFIX + "receipts", PREFIX + "conflicts", PREFIX + "dead-letters");
        assertThat(writes(acls.get("executor"))).containsExactly(PREFIX + "outcomes");
        assertThat(writes(acls.get("reconciler"))).containsExactly(PREFIX + "reconciliations");
        assertThat(reads(acls.get("executor"))).containsExactly(PREFIX + "attempts");
        assertThat(reads(acls.get("reconciler"))).containsExactly(PREFIX + "unknown-outcomes");
        // the gate reads its four inputs and policy: the topics its topology subscribes to
        Set<String> gateInputs = new TreeSet<>(io.actiongate.gate.InputPartitions.inputTopics(PREFIX));
        gateInputs.add(Topics.POLICY.name(PREFIX));
        assertThat(reads(acls.get("gate")).stream().filter(t -> t.startsWith(PREFIX))).containsExactlyInAnyOrderElementsOf(
                gateInputs);
        // every granted topic is one of actiongate's (or the gate's own internal topics, the approver's own state)
        Set<String> known = new TreeSet<>(Topics.names(PREFIX));
        acls.forEach((role, ops) -> assertThat(ops.keySet()).as(role).allMatch(t -> known.contains(t)
                || role.equals("gate") && t.startsWith("prefix:")
                || role.equals("approver") && t.equals(PREFIX + "approver-state")));
    }

    @Test
    void shouldGrantTheGateItsStreamsInternalsAndTheWorkersTheirGroupsUnderTheReleaseIds() {
        ChartRender render = ChartRender.render(secured("scram-sha-512"));
        Map<String, String> config = properties(render.get("ConfigMap", FULLNAME));
        String app = config.get(CommonConfig.APPLICATION_ID_CONFIG);

        List<JsonNode> gate = acls(render.get("KafkaUser", USERS.get("gate")));
        assertThat(rule(gate, "group", app, "literal")).containsExactly("Read");
        assertThat(rule(gate, "topic", app + "-", "prefix")).contains("Create", "Read", "Write", "Delete");
        // exactly-once v2 transactional ids: <application.id>-<process id>-<thread index>
        assertThat(rule(gate, "transactionalId", app + "-", "prefix")).containsExactlyInAnyOrder("Write", "Describe");
        assertThat(rule(acls(render.get("KafkaUser", USERS.get("executor"))), "group",
                config.get(ExecutorConfig.GROUP_ID_CONFIG), "literal")).contains("Read");
        assertThat(rule(acls(render.get("KafkaUser", USERS.get("reconciler"))), "group",
                config.get(ReconcilerConfig.GROUP_ID_CONFIG), "literal")).contains("Read");
        // the approval service and the gateway read by assignment: no group at all
        for (String role : List.of("approver", "mcpGateway")) {
            assertThat(acls(render.get("KafkaUser", USERS.get(role))))
                    .noneMatch(r -> r.path("resource").path("type").asText().equals("group")
                            || r.path("resource").path("type").asText().equals("transactionalId"));
        }

        // with private attachments the executor's attachment cleaner needs its own group, policy and receipts
        Map<String, Object> storage = secured("scram-sha-512");
        storage.put("config.storage\\.enabled", "true");
        ChartRender withStorage = ChartRender.render(storage);
        List<JsonNode> executor = acls(withStorage.get("KafkaUser", USERS.get("executor")));
        assertThat(rule(executor, "group", config.get(ExecutorConfig.GROUP_ID_CONFIG) + "-attachment-cleaner",
                "literal")).contains("Read");
        assertThat(rule(executor, "topic", PREFIX + "receipts", "literal")).containsExactly("Read");

        Map<String, Object> extra = secured("scram-sha-512");
        extra.put("kafkaUsers.extraAcls.gate[0].resource.type", "topic");
        extra.put("kafkaUsers.extraAcls.gate[0].resource.name", "audit");
        extra.put("kafkaUsers.extraAcls.gate[0].resource.patternType", "literal");
        extra.put("kafkaUsers.extraAcls.gate[0].operations[0]", "Write");
        assertThat(rule(acls(ChartRender.render(extra).get("KafkaUser", USERS.get("gate"))), "topic", "audit",
                "literal")).containsExactly("Write");
    }

    @Test
    void shouldServeStrimziV1ByDefaultAndV1beta2ForOlderOperators() {
        ChartRender v1 = ChartRender.render(secured("scram-sha-512"));
        Map<String, Object> sets = secured("scram-sha-512");
        sets.put("strimzi.apiVersion", "v1beta2");
        ChartRender v1beta2 = ChartRender.render(sets);
        for (String kind : List.of("KafkaTopic", "KafkaUser")) {
            assertThat(v1.ofKind(kind)).isNotEmpty().allSatisfy(r ->
                    assertThat(r.path("apiVersion").asText()).isEqualTo("kafka.strimzi.io/v1"));
            assertThat(v1beta2.ofKind(kind)).isNotEmpty().allSatisfy(r ->
                    assertThat(r.path("apiVersion").asText()).isEqualTo("kafka.strimzi.io/v1beta2"));
        }
        // v1 removed the single `operation` of an ACL rule: the chart writes `operations` in both versions
        assertThat(v1beta2.ofKind("KafkaUser")).allSatisfy(u -> assertThat(acls(u)).allSatisfy(r -> {
            assertThat(r.has("operation")).isFalse();
            assertThat(r.path("operations").isArray()).isTrue();
        }));
        assertThatThrownBy(() -> ChartRender.render(Map.of("strimzi.apiVersion", "v2")))
                .hasMessageContaining("schema").hasMessageContaining("apiVersion");
        // the older cluster name value still works
        ChartRender legacy = ChartRender.render(Map.of("topics.strimzi.enabled", true,
                "topics.strimzi.clusterName", "old-cluster"));
        assertThat(legacy.ofKind("KafkaTopic")).allSatisfy(t -> assertThat(t.path("metadata").path("labels")
                .path("strimzi.io/cluster").asText()).isEqualTo("old-cluster"));
    }

    @Test
    void shouldDeriveApplicationAndGroupIdsFromTheReleaseSoTwoReleasesShareACluster() {
        Map<String, String> first = properties(ChartRender.render(Map.of()).get("ConfigMap", FULLNAME));
        Map<String, String> second = properties(ChartRender.renderRelease("ag2", ChartRender.NAMESPACE, Map.of())
                .get("ConfigMap", "ag2-actiongate"));
        Map<String, String> elsewhere = properties(ChartRender.renderRelease(ChartRender.RELEASE, "staging", Map.of())
                .get("ConfigMap", FULLNAME));
        List<String> ids = List.of(CommonConfig.APPLICATION_ID_CONFIG, ExecutorConfig.GROUP_ID_CONFIG,
                ReconcilerConfig.GROUP_ID_CONFIG);
        assertThat(first).containsEntry(CommonConfig.APPLICATION_ID_CONFIG, "agents.ag-actiongate-gate")
                .containsEntry(ExecutorConfig.GROUP_ID_CONFIG, "agents.ag-actiongate-executor")
                .containsEntry(ReconcilerConfig.GROUP_ID_CONFIG, "agents.ag-actiongate-reconciler");
        for (String id : ids) {
            assertThat(second.get(id)).as(id).isNotEqualTo(first.get(id));
            assertThat(elsewhere.get(id)).as(id).isNotEqualTo(first.get(id));
        }
        // no two roles share a group, and the role configs accept the ids
        assertThat(new TreeSet<>(ids.stream().map(first::get).toList())).hasSize(3);
        assertThat(new CommonConfig(first).applicationId()).isEqualTo("agents.ag-actiongate-gate");
        assertThat(new ExecutorConfig(first).groupId()).isEqualTo("agents.ag-actiongate-executor");
        assertThat(new ReconcilerConfig(first).groupId()).isEqualTo("agents.ag-actiongate-reconciler");

        Map<String, String> pinned = properties(ChartRender.render(Map.of("gate.applicationId", "actiongate-gate",
                "executor.groupId", "actiongate-executor", "reconciler.groupId", "actiongate-reconciler"))
                .get("ConfigMap", FULLNAME));
        assertThat(pinned).containsEntry(CommonConfig.APPLICATION_ID_CONFIG, "actiongate-gate")
                .containsEntry(ExecutorConfig.GROUP_ID_CONFIG, "actiongate-executor")
                .containsEntry(ReconcilerConfig.GROUP_ID_CONFIG, "actiongate-reconciler");
        // an id a values file of an earlier chart set in config is still honoured
        Map<String, String> legacy = properties(ChartRender.render(Map.of("config.application\\.id", "acme-gate",
                "config.executor\\.group\\.id", "acme-executor")).get("ConfigMap", FULLNAME));
        assertThat(legacy).containsEntry(CommonConfig.APPLICATION_ID_CONFIG, "acme-gate")
                .containsEntry(ExecutorConfig.GROUP_ID_CONFIG, "acme-executor")
                .containsEntry(ReconcilerConfig.GROUP_ID_CONFIG, "agents.ag-actiongate-reconciler");
        assertThatThrownBy(() -> ChartRender.render(Map.of("gate.applicationId", "has space")))
                .hasMessageContaining("schema").hasMessageContaining("applicationId");
    }

    @Test
    void shouldBoundRocksDbFromTheGateMemoryLimitByDefault() {
        ChartRender defaults = ChartRender.render(Map.of());
        Map<String, String> config = properties(defaults.get("ConfigMap", FULLNAME));
        // 25 % of the default 2 Gi limit
        assertThat(config).containsEntry(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG, String.valueOf(512L << 20));
        assertThat(GateConfig.fromStrings(config).rocksDbMemoryBytes()).isEqualTo(512L << 20);
        // the gate's heap takes at most half the limit, so heap + RocksDB leave a quarter for the JVM itself
        JsonNode gate = defaults.get("StatefulSet", FULLNAME + "-gate");
        assertThat(env(gate, "JAVA_TOOL_OPTIONS").path("value").asText()).contains("-XX:MaxRAMPercentage=50.0");
        assertThat(env(defaults.get("Deployment", FULLNAME + "-executor"), "JAVA_TOOL_OPTIONS").path("value")
                .asText()).contains("-XX:MaxRAMPercentage=75.0");

        assertThat(rocksDb(Map.of("gate.resources.limits.memory", "4Gi"))).isEqualTo(1L << 30);
        assertThat(rocksDb(Map.of("gate.resources.limits.memory", "3000M"))).isEqualTo(750_000_000L);
        assertThat(rocksDb(Map.of("gate.resources.limits.memory", "4Gi", "gate.rocksdb.memoryPercentOfLimit", 10)))
                .isEqualTo((4L << 30) / 10);
        assertThat(rocksDb(Map.of("gate.rocksdb.memoryBytes", "256Mi"))).isEqualTo(256L << 20);
        assertThat(rocksDb(Map.of("gate.rocksdb.memoryBytes", "0"))).isZero();
        // without a memory limit (--set ...=null removes it) there is nothing to derive a bound from
        assertThat(rocksDb(Map.of("gate.resources.limits.memory", "null"))).isZero();
        assertThatThrownBy(() -> ChartRender.render(Map.of("gate.resources.limits.memory", "lots")))
                .hasMessageContaining("lots");
    }

    private static long rocksDb(Map<String, Object> sets) {
        return Long.parseLong(properties(ChartRender.render(sets).get("ConfigMap", FULLNAME))
                .get(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG));
    }

    private static JsonNode workload(ChartRender render, String role) {
        return switch (role) {
            case "gate" -> render.get("StatefulSet", FULLNAME + "-gate");
            case "mcpGateway" -> render.get("Deployment", FULLNAME + "-mcp-gateway");
            default -> render.get("Deployment", FULLNAME + "-" + role);
        };
    }

    private static List<JsonNode> acls(JsonNode user) {
        List<JsonNode> rules = new ArrayList<>();
        user.path("spec").path("authorization").path("acls").forEach(rules::add);
        return rules;
    }

    /** Topic name (or "prefix:NAME" for a prefixed pattern) to the operations granted on it. */
    private static Map<String, Set<String>> topicOperations(JsonNode user) {
        Map<String, Set<String>> ops = new TreeMap<>();
        for (JsonNode rule : acls(user)) {
            JsonNode resource = rule.path("resource");
            if (!resource.path("type").asText().equals("topic")) {
                continue;
            }
            String name = resource.path("patternType").asText().equals("prefix")
                    ? "prefix:" + resource.path("name").asText() : resource.path("name").asText();
            rule.path("operations").forEach(o -> ops.computeIfAbsent(name, k -> new TreeSet<>()).add(o.asText()));
        }
        return ops;
    }

    private static Set<String> writes(Map<String, Set<String>> ops) {
        return withOperation(ops, "Write");
    }

    private static Set<String> reads(Map<String, Set<String>> ops) {
        return withOperation(ops, "Read");
    }

    private static Set<String> withOperation(Map<String, Set<String>> ops, String operation) {
        Set<String> topics = new TreeSet<>();
        ops.forEach((topic, granted) -> {
            if (granted.contains(operation) && !topic.startsWith("prefix:")) {
                topics.add(topic);
            }
        });
        return topics;
    }

    private static List<String> rule(List<JsonNode> rules, String type, String name, String patternType) {
        for (JsonNode r : rules) {
            JsonNode resource = r.path("resource");
            if (resource.path("type").asText().equals(type) && resource.path("name").asText().equals(name)
                    && resource.path("patternType").asText().equals(patternType)) {
                List<String> ops = new ArrayList<>();
                r.path("operations").forEach(o -> ops.add(o.asText()));
                return ops;
            }
        }
        throw new AssertionError("no " + patternType + " " + type + " rule for " + name + " in " + rules);
    }

    static JsonNode env(JsonNode workload, String name) {
        for (JsonNode e : container(workload).path("env")) {
            if (name.equals(e.path("name").asText())) {
                return e;
            }
        }
        throw new AssertionError("no env " + name + " in " + workload.path("metadata").path("name").asText());
    }

    static JsonNode mount(JsonNode workload, String name) {
        for (JsonNode m : container(workload).path("volumeMounts")) {
            if (name.equals(m.path("name").asText())) {
                return m;
            }
        }
        return null;
    }

    static JsonNode volume(JsonNode workload, String name) {
        for (JsonNode v : podSpec(workload).path("volumes")) {
            if (name.equals(v.path("name").asText())) {
                return v;
            }
        }
        return null;
    }
}
