package io.actiongate.helm;

import static io.actiongate.helm.ChartRender.container;
import static io.actiongate.helm.ChartRender.podSpec;
import static io.actiongate.helm.ChartRender.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.http.HttpServerConfig;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

/**
 * The chart's optional features, each rendered off (the default) and on through the Helm library, and
 * values.schema.json rejecting bad values before anything renders.
 */
class HelmChartOptionsTest {

    private static final String FULLNAME = ChartRender.RELEASE + "-actiongate";
    private static final List<String> ROLES = List.of("gate", "executor", "reconciler");
    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    private static ChartRender defaults;

    @BeforeAll
    static void render() {
        defaults = ChartRender.render(Map.of());
    }

    @Test
    void shouldRejectValuesTheSchemaForbids() {
        assertRejected(Map.of("topics.partitions", 0), "partitions");
        assertRejected(Map.of("image.digest", "latest"), "digest");
        assertRejected(Map.of("gate.podManagementPolicy", "Sometimes"), "podManagementPolicy");
        assertRejected(Map.of("http.port", 70000), "port");
        assertRejected(Map.of("kafka.bootstrapServers", "no-port"), "bootstrapServers");
        // a misspelt top-level key fails instead of being silently ignored
        assertRejected(Map.of("gaet.replicas", 3), "gaet");
        assertRejected(Map.of("executor.topologySpreadConstraints[0].maxSkew", 1), "topologyKey");
        assertRejected(Map.of("logFormat", "xml"), "logFormat");
        // and the schema accepts every default and the documented options
        assertThat(defaults.all()).isNotEmpty();
    }

    private static void assertRejected(Map<String, Object> sets, String mentioned) {
        assertThatThrownBy(() -> ChartRender.render(sets))
                .as("values %s", sets)
                .hasMessageContaining("schema")
                .hasMessageContaining(mentioned);
    }

    @Test
    void shouldSwitchEveryContainerToJsonLogsWithOneValue() {
        assertThat(defaults.workloads()).allSatisfy(w -> assertThat(envValue(w, "ACTIONGATE_LOG_FORMAT"))
                .isEqualTo("text"));
        ChartRender json = ChartRender.render(Map.of("logFormat", "json"));
        assertThat(json.workloads()).hasSize(4).allSatisfy(w -> assertThat(envValue(w, "ACTIONGATE_LOG_FORMAT"))
                .isEqualTo("json"));
        // not a configuration key: no unrecognized-key warning for it
        assertThat(io.actiongate.config.EnvironmentOverrides.from(Map.of("ACTIONGATE_LOG_FORMAT", "json")))
                .isEmpty();
    }

    private static String envValue(JsonNode workload, String name) {
        for (JsonNode e : container(workload).path("env")) {
            if (name.equals(e.path("name").asText())) {
                return e.path("value").asText();
            }
        }
        return null;
    }

    @Test
    void shouldPullByDigestWhenOneIsGiven() {
        assertThat(defaults.workloads()).allSatisfy(w ->
                assertThat(container(w).path("image").asText()).isEqualTo("actiongate:0.1.0-SNAPSHOT"));
        ChartRender pinned = ChartRender.render(Map.of("image.repository", "registry.example.com/actiongate",
                "image.tag", "0.1.0", "image.digest", DIGEST));
        assertThat(pinned.workloads()).hasSize(4).allSatisfy(w ->
                assertThat(container(w).path("image").asText())
                        .isEqualTo("registry.example.com/actiongate@" + DIGEST));
    }

    @Test
    void shouldAddExtraVolumesMountsAndEnvironmentToEveryWorkload() {
        assertThat(defaults.workloads()).allSatisfy(w -> assertThat(volume(w, "kafka-ca")).isNull());
        Map<String, Object> sets = new LinkedHashMap<>();
        sets.put("extraVolumes[0].name", "kafka-ca");
        sets.put("extraVolumes[0].secret.secretName", "my-cluster-cluster-ca-cert");
        sets.put("extraVolumeMounts[0].name", "kafka-ca");
        sets.put("extraVolumeMounts[0].mountPath", "/etc/kafka-ca");
        sets.put("extraVolumeMounts[0].readOnly", true);
        sets.put("extraEnv[0].name", "ACTIONGATE_KAFKA_SSL_TRUSTSTORE_LOCATION");
        sets.put("extraEnv[0].value", "/etc/kafka-ca/ca.p12");
        ChartRender render = ChartRender.render(sets);
        assertThat(render.workloads()).hasSize(4).allSatisfy(w -> {
            assertThat(volume(w, "kafka-ca").path("secret").path("secretName").asText())
                    .isEqualTo("my-cluster-cluster-ca-cert");
            JsonNode mount = mount(w, "kafka-ca");
            assertThat(mount.path("mountPath").asText()).isEqualTo("/etc/kafka-ca");
            assertThat(mount.path("readOnly").asBoolean()).isTrue();
            assertThat(envNames(w)).contains("ACTIONGATE_KAFKA_SSL_TRUSTSTORE_LOCATION");
            // the chart's own mounts stay
            assertThat(mount(w, "config")).isNotNull();
            assertThat(mount(w, "tmp")).isNotNull();
        });
    }

    @Test
    void shouldSpreadEachRoleWithItsOwnSelectorWhenConstraintsAreGiven() {
        for (String role : ROLES) {
            assertThat(podSpec(workload(defaults, role)).has("topologySpreadConstraints")).isFalse();
        }
        Map<String, Object> sets = new LinkedHashMap<>();
        for (String role : ROLES) {
            sets.put(role + ".topologySpreadConstraints[0].maxSkew", 1);
            sets.put(role + ".topologySpreadConstraints[0].topologyKey", "topology.kubernetes.io/zone");
            sets.put(role + ".topologySpreadConstraints[0].whenUnsatisfiable", "ScheduleAnyway");
        }
        sets.put("gate.topologySpreadConstraints[1].maxSkew", 1);
        sets.put("gate.topologySpreadConstraints[1].topologyKey", "kubernetes.io/hostname");
        sets.put("gate.topologySpreadConstraints[1].whenUnsatisfiable", "DoNotSchedule");
        sets.put("gate.topologySpreadConstraints[1].labelSelector.matchLabels.custom", "yes");
        ChartRender render = ChartRender.render(sets);
        for (String role : ROLES) {
            JsonNode w = workload(render, role);
            JsonNode constraint = podSpec(w).path("topologySpreadConstraints").get(0);
            assertThat(constraint.path("topologyKey").asText()).isEqualTo("topology.kubernetes.io/zone");
            assertThat(constraint.path("whenUnsatisfiable").asText()).isEqualTo("ScheduleAnyway");
            assertThat(constraint.path("labelSelector").path("matchLabels"))
                    .isEqualTo(w.path("spec").path("selector").path("matchLabels"));
        }
        JsonNode explicit = podSpec(workload(render, "gate")).path("topologySpreadConstraints").get(1);
        assertThat(explicit.path("labelSelector").path("matchLabels").path("custom").asText()).isEqualTo("yes");
        assertThat(explicit.path("labelSelector").path("matchLabels").has("app.kubernetes.io/component")).isFalse();
    }

    @Test
    void shouldGiveExecutorAndReconcilerDisruptionBudgetsOfTheirOwnPods() {
        for (String role : ROLES) {
            JsonNode pdb = defaults.get("PodDisruptionBudget", FULLNAME + "-" + role);
            assertThat(pdb.path("spec").path("maxUnavailable").asInt()).isEqualTo(1);
            assertThat(pdb.path("spec").path("selector").path("matchLabels"))
                    .isEqualTo(workload(defaults, role).path("spec").path("selector").path("matchLabels"));
        }
        ChartRender off = ChartRender.render(Map.of("executor.podDisruptionBudget.enabled", false,
                "reconciler.podDisruptionBudget.minAvailable", 1));
        assertThat(off.names()).doesNotContain("PodDisruptionBudget/" + FULLNAME + "-executor")
                .contains("PodDisruptionBudget/" + FULLNAME + "-gate");
        JsonNode reconciler = off.get("PodDisruptionBudget", FULLNAME + "-reconciler");
        assertThat(reconciler.path("spec").path("minAvailable").asInt()).isEqualTo(1);
        assertThat(reconciler.path("spec").has("maxUnavailable")).isFalse();
    }

    @Test
    void shouldRenderAServiceMonitorOnlyWhenEnabled() {
        assertThat(defaults.ofKind("ServiceMonitor")).isEmpty();
        assertThat(defaults.names()).doesNotContain("Service/" + FULLNAME + "-metrics");

        ChartRender render = ChartRender.render(Map.of("metrics.serviceMonitor.enabled", true,
                "metrics.serviceMonitor.labels.release", "kube-prometheus-stack"));
        JsonNode monitor = render.get("ServiceMonitor", FULLNAME);
        assertThat(monitor.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.path("metadata").path("labels").path("release").asText())
                .isEqualTo("kube-prometheus-stack");
        JsonNode service = render.get("Service", FULLNAME + "-metrics");
        // the monitor selects exactly the metrics Service (not the gate's client Services)
        Map<String, String> selector = strings(monitor.path("spec").path("selector").path("matchLabels"));
        assertThat(selector).isNotEmpty();
        for (JsonNode s : render.ofKind("Service")) {
            boolean selected = strings(s.path("metadata").path("labels")).entrySet().containsAll(selector.entrySet());
            assertThat(selected).as("%s selected", s.path("metadata").path("name").asText())
                    .isEqualTo(s == service);
        }
        // ... and the metrics Service selects the pods of every long-running role
        Map<String, String> podSelector = strings(service.path("spec").path("selector"));
        for (String role : ROLES) {
            Map<String, String> podLabels = strings(workload(render, role).path("spec").path("template")
                    .path("metadata").path("labels"));
            assertThat(podLabels.entrySet()).containsAll(podSelector.entrySet());
        }
        JsonNode endpoint = monitor.path("spec").path("endpoints").get(0);
        assertThat(endpoint.path("port").asText()).isEqualTo("http");
        assertThat(endpoint.path("path").asText()).isEqualTo("/metrics");
        assertThat(endpoint.has("authorization")).isFalse();

        ChartRender relabelled = ChartRender.render(Map.of("metrics.serviceMonitor.enabled", true,
                "metrics.serviceMonitor.metricRelabelings[0].sourceLabels[0]", "__name__",
                "metrics.serviceMonitor.metricRelabelings[0].regex", "kafka_streams_state_.*",
                "metrics.serviceMonitor.metricRelabelings[0].action", "drop"));
        JsonNode relabeling = relabelled.get("ServiceMonitor", FULLNAME).path("spec").path("endpoints").get(0)
                .path("metricRelabelings").get(0);
        assertThat(relabeling.path("action").asText()).isEqualTo("drop");
        assertThat(relabeling.path("regex").asText()).isEqualTo("kafka_streams_state_.*");
        assertThat(endpoint.has("metricRelabelings")).isFalse();

        ChartRender authenticated = ChartRender.render(Map.of("metrics.serviceMonitor.enabled", true,
                "http.auth.existingSecret", "http-tokens", "http.auth.metrics", true));
        JsonNode credentials = authenticated.get("ServiceMonitor", FULLNAME).path("spec").path("endpoints").get(0)
                .path("authorization").path("credentials");
        assertThat(credentials.path("name").asText()).isEqualTo("http-tokens");
        assertThat(credentials.path("key").asText()).isEqualTo("metrics-token");
    }

    @Test
    void shouldShipTheGrafanaDashboardAsASidecarConfigMapOnlyWhenEnabled() throws IOException {
        assertThat(defaults.names()).doesNotContain("ConfigMap/" + FULLNAME + "-dashboard");
        ChartRender render = ChartRender.render(Map.of("metrics.grafanaDashboard.enabled", true));
        JsonNode configMap = render.get("ConfigMap", FULLNAME + "-dashboard");
        assertThat(configMap.path("metadata").path("labels").path("grafana_dashboard").asText()).isEqualTo("1");
        JsonNode dashboard = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(configMap.path("data").path("actiongate.json").asText());
        assertThat(dashboard.path("uid").asText()).isEqualTo("actiongate");
        assertThat(dashboard.path("panels").size()).isGreaterThan(10);
    }

    @Test
    void shouldRenderANetworkPolicyOnlyWhenEnabled() {
        assertThat(defaults.ofKind("NetworkPolicy")).isEmpty();
        Map<String, Object> sets = new LinkedHashMap<>();
        sets.put("networkPolicy.enabled", true);
        sets.put("networkPolicy.ingressFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name",
                "monitoring");
        ChartRender render = ChartRender.render(sets);
        JsonNode policy = render.get("NetworkPolicy", FULLNAME);
        Map<String, String> podSelector = strings(policy.path("spec").path("podSelector").path("matchLabels"));
        for (String role : ROLES) {
            assertThat(strings(workload(render, role).path("spec").path("template").path("metadata")
                    .path("labels")).entrySet()).containsAll(podSelector.entrySet());
        }
        assertThat(policy.path("spec").path("policyTypes").toString()).isEqualTo("[\"Ingress\"]");
        JsonNode rule = policy.path("spec").path("ingress").get(0);
        assertThat(rule.path("ports").get(0).path("port").asText()).isEqualTo("http");
        JsonNode from = rule.path("from");
        assertThat(from).hasSize(2);
        // the release's own pods (gate-to-gate forwarding) and the listed peer
        assertThat(strings(from.get(0).path("podSelector").path("matchLabels"))).isEqualTo(podSelector);
        assertThat(from.get(1).path("namespaceSelector").path("matchLabels").path("kubernetes.io/metadata.name")
                .asText()).isEqualTo("monitoring");
        assertThat(policy.path("spec").has("egress")).isFalse();

        sets.put("networkPolicy.egress[0].ports[0].port", 53);
        sets.put("networkPolicy.egress[0].ports[0].protocol", "UDP");
        JsonNode egress = ChartRender.render(sets).get("NetworkPolicy", FULLNAME);
        assertThat(egress.path("spec").path("policyTypes").toString()).contains("Egress");
        assertThat(egress.path("spec").path("egress").get(0).path("ports").get(0).path("port").asInt())
                .isEqualTo(53);
    }

    @Test
    void shouldDeclareTopicsAsStrimziKafkaTopicsExactlyAsTopicsCreateWould() {
        assertThat(defaults.ofKind("KafkaTopic")).isEmpty();
        assertThatThrownBy(() -> ChartRender.render(Map.of("topics.strimzi.enabled", true)))
                .hasMessageContaining("clusterName");

        ChartRender render = ChartRender.render(Map.of("topics.strimzi.enabled", true,
                "topics.strimzi.clusterName", "my-cluster", "topics.prefix", "acme_", "topics.partitions", 24,
                "topics.replicationFactor", 3));
        assertThat(render.ofKind("Job")).isEmpty();
        List<JsonNode> topics = render.ofKind("KafkaTopic");
        Map<String, JsonNode> byName = new TreeMap<>();
        topics.forEach(t -> byName.put(t.path("spec").path("topicName").asText(), t));
        assertThat(byName.keySet()).containsExactlyInAnyOrderElementsOf(Topics.names("acme_"));
        for (TopicSpec<?, ?> spec : Topics.ALL) {
            JsonNode topic = byName.get(spec.name("acme_"));
            assertThat(topic.path("apiVersion").asText()).isEqualTo("kafka.strimzi.io/v1");
            assertThat(topic.path("metadata").path("labels").path("strimzi.io/cluster").asText())
                    .isEqualTo("my-cluster");
            assertThat(topic.path("metadata").path("name").asText()).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
            assertThat(topic.path("spec").path("partitions").asInt()).isEqualTo(24);
            assertThat(topic.path("spec").path("replicas").asInt()).isEqualTo(3);
            assertThat(strings(topic.path("spec").path("config"))).isEqualTo(spec.configs());
        }
    }

    @Test
    void shouldMountTheTokenSecretAndPointTheConfigurationAtIt() {
        Map<String, String> plain = properties(defaults.get("ConfigMap", FULLNAME));
        assertThat(plain).doesNotContainKey(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG)
                .containsEntry(HttpServerConfig.HTTP_AUTH_METRICS_CONFIG, "false");
        assertThat(defaults.workloads()).allSatisfy(w -> assertThat(volume(w, "http-auth")).isNull());

        ChartRender render = ChartRender.render(Map.of("http.auth.existingSecret", "http-tokens",
                "http.auth.metrics", true));
        Map<String, String> config = properties(render.get("ConfigMap", FULLNAME));
        assertThat(config).containsEntry(HttpServerConfig.HTTP_AUTH_METRICS_CONFIG, "true");
        String file = config.get(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG);
        for (String role : ROLES) {
            JsonNode w = workload(render, role);
            assertThat(volume(w, "http-auth").path("secret").path("secretName").asText()).isEqualTo("http-tokens");
            // a directory mount (not subPath), so a rotated Secret reaches the running pod
            JsonNode mount = mount(w, "http-auth");
            assertThat(mount.has("subPath")).isFalse();
            assertThat(file).isEqualTo(mount.path("mountPath").asText() + "/tokens");
        }
    }

    @Test
    void shouldServeHttpsAndProbeOverHttpsWithATlsSecret() {
        for (String role : ROLES) {
            assertThat(container(workload(defaults, role)).path("readinessProbe").path("httpGet").path("scheme")
                    .asText()).isEqualTo("HTTP");
        }
        ChartRender render = ChartRender.render(Map.of("http.tls.existingSecret", "actiongate-tls",
                "http.tls.clientCaKey", "ca.crt"));
        Map<String, String> config = properties(render.get("ConfigMap", FULLNAME));
        for (String role : ROLES) {
            JsonNode w = workload(render, role);
            String dir = mount(w, "http-tls").path("mountPath").asText();
            assertThat(config).containsEntry(HttpServerConfig.HTTP_TLS_CERTIFICATE_FILE_CONFIG, dir + "/tls.crt")
                    .containsEntry(HttpServerConfig.HTTP_TLS_KEY_FILE_CONFIG, dir + "/tls.key")
                    .containsEntry(HttpServerConfig.HTTP_TLS_CLIENT_CA_FILE_CONFIG, dir + "/ca.crt");
            assertThat(volume(w, "http-tls").path("secret").path("secretName").asText()).isEqualTo("actiongate-tls");
            assertThat(container(w).path("readinessProbe").path("httpGet").path("scheme").asText())
                    .isEqualTo("HTTPS");
            assertThat(container(w).path("livenessProbe").path("httpGet").path("scheme").asText())
                    .isEqualTo("HTTPS");
        }
        assertThat(new ConfigKeys().unknown(config.keySet())).isEmpty();
    }

    @Test
    void shouldCommitADockerfileForTheProductionJarAsANonRootUser() throws IOException {
        Path dockerfile = ChartRender.chart().resolve("../../Dockerfile").normalize();
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(dockerfile, StandardCharsets.UTF_8)) {
            if (!line.isBlank() && !line.strip().startsWith("#")) {
                lines.add(line.strip());
            }
        }
        String user = lines.stream().filter(l -> l.startsWith("USER ")).reduce((a, b) -> b).orElseThrow();
        // numeric, non-zero, and the uid the chart's podSecurityContext runs as
        assertThat(user).isEqualTo("USER 10001:10001");
        assertThat(lines).anyMatch(l -> l.startsWith("COPY") && l.contains("cli/target/actiongate-cli-*-all.jar"));
        assertThat(lines).anyMatch(l -> l.startsWith("ENTRYPOINT") && l.contains("\"-jar\""));
        // nothing writes to the image at run time outside the chart's writable volumes
        assertThat(lines).anyMatch(l -> l.startsWith("VOLUME") && l.contains("/tmp"));
        assertThat(defaults.get("StatefulSet", FULLNAME + "-gate").path("spec").path("template").path("spec")
                .path("securityContext").path("runAsUser").asInt()).isEqualTo(10001);
    }

    private static JsonNode workload(ChartRender render, String role) {
        return "gate".equals(role) ? render.get("StatefulSet", FULLNAME + "-gate")
                : render.get("Deployment", FULLNAME + "-" + role);
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> map = new HashMap<>();
        object.properties().forEach(e -> map.put(e.getKey(), e.getValue().asText()));
        return map;
    }

    private static List<String> envNames(JsonNode workload) {
        List<String> names = new ArrayList<>();
        container(workload).path("env").forEach(e -> names.add(e.path("name").asText()));
        return names;
    }

    private static JsonNode mount(JsonNode workload, String name) {
        for (JsonNode m : container(workload).path("volumeMounts")) {
            if (name.equals(m.path("name").asText())) {
                return m;
            }
        }
        return null;
    }

    private static JsonNode volume(JsonNode workload, String name) {
        for (JsonNode v : podSpec(workload).path("volumes")) {
            if (name.equals(v.path("name").asText())) {
                return v;
            }
        }
        return null;
    }
}
