package io.actiongate.helm;

import static io.actiongate.helm.ChartRender.args;
import static io.actiongate.helm.ChartRender.container;
import static io.actiongate.helm.ChartRender.podSpec;
import static io.actiongate.helm.ChartRender.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.cli.Main;
import io.actiongate.config.CommonConfig;
import io.actiongate.config.EnvironmentOverrides;
import io.actiongate.executor.ExecutorConfig;
import io.actiongate.gate.GateConfig;
import io.actiongate.node.NodeConfig;
import io.actiongate.notifier.NotifierConfig;
import io.actiongate.reconciler.ReconcilerConfig;
import picocli.CommandLine;

/** Renders helm/actiongate with the real Helm library (helm-java) and checks it against actiongate itself. */
class HelmChartTest {

    private static final String FULLNAME = ChartRender.RELEASE + "-actiongate";
    private static final String CONFIG_FILE = "/etc/actiongate/actiongate.properties";

    private static ChartRender defaults;
    private static ChartRender overridden;
    private static final ConfigKeys KEYS = new ConfigKeys();

    @BeforeAll
    static void render() {
        defaults = ChartRender.render(Map.of());
        Map<String, Object> sets = new LinkedHashMap<>();
        sets.put("kafka.bootstrapServers", "kafka-0.kafka:9092,kafka-1.kafka:9092");
        sets.put("topics.partitions", 24);
        sets.put("topics.replicationFactor", 2);
        sets.put("gate.replicas", 3);
        sets.put("gate.streamThreads", 4);
        sets.put("executor.replicas", 5);
        sets.put("trustedKeys.existingSecret", "approver-keys");
        sets.put("connectorSecrets.existingSecret", "connector-credentials");
        sets.put("config.connectors\\.webhook\\.base-url", "https://tools.example");
        sets.put("config.connectors\\.webhook\\.credential", "file:/etc/actiongate/secrets/webhook-token");
        sets.put("config.executor\\.consumer\\.session\\.timeout\\.ms", 45000);
        sets.put("config.kafka\\.security\\.protocol", "SSL");
        sets.put("config.gate\\.streams\\.commit\\.interval\\.ms", 200);
        sets.put("extraEnv[0].name", "ACTIONGATE_KAFKA_SASL_JAAS_CONFIG");
        sets.put("extraEnv[0].valueFrom.secretKeyRef.name", "kafka-credentials");
        sets.put("extraEnv[0].valueFrom.secretKeyRef.key", "jaas.config");
        overridden = ChartRender.render(sets);
    }

    @Test
    void shouldRenderParseableManifestsForEveryComponent() {
        for (ChartRender render : List.of(defaults, overridden)) {
            assertThat(render.all()).allSatisfy(m -> {
                assertThat(m.path("apiVersion").asText()).isNotBlank();
                assertThat(m.path("kind").asText()).isNotBlank();
                assertThat(m.path("metadata").path("name").asText()).isNotBlank();
            });
            assertThat(render.names()).contains(
                    "StatefulSet/" + FULLNAME + "-gate",
                    "Service/" + FULLNAME + "-gate",
                    "Service/" + FULLNAME + "-gate-headless",
                    "PodDisruptionBudget/" + FULLNAME + "-gate",
                    "PodDisruptionBudget/" + FULLNAME + "-executor",
                    "PodDisruptionBudget/" + FULLNAME + "-reconciler",
                    "Deployment/" + FULLNAME + "-executor",
                    "Deployment/" + FULLNAME + "-reconciler",
                    "Job/" + FULLNAME + "-topics",
                    "ConfigMap/" + FULLNAME,
                    "ServiceAccount/" + FULLNAME);
        }
    }

    @Test
    void shouldRunTheGateAsAStatefulSetWithItsStateOnAVolumeClaim() {
        JsonNode gate = defaults.get("StatefulSet", FULLNAME + "-gate");
        assertThat(args(gate)).contains("run", "--roles=gate");
        assertThat(gate.path("spec").path("replicas").asInt()).isEqualTo(2);
        JsonNode claims = gate.path("spec").path("volumeClaimTemplates");
        assertThat(claims).hasSize(1);
        String claim = claims.get(0).path("metadata").path("name").asText();
        String stateDir = properties(defaults.get("ConfigMap", FULLNAME)).get(CommonConfig.STATE_DIR_CONFIG);
        assertThat(mountPath(gate, claim)).isEqualTo(stateDir);
        assertThat(properties(defaults.get("ConfigMap", FULLNAME)))
                .containsEntry("gate.streams.num.stream.threads", "1");

        JsonNode scaled = overridden.get("StatefulSet", FULLNAME + "-gate");
        assertThat(scaled.path("spec").path("replicas").asInt()).isEqualTo(3);
        assertThat(properties(overridden.get("ConfigMap", FULLNAME))).containsEntry("gate.streams.num.stream.threads", "4");
    }

    @Test
    void shouldAdvertiseEachGatePodByItsStableHeadlessServiceName() {
        JsonNode gate = defaults.get("StatefulSet", FULLNAME + "-gate");
        JsonNode headless = defaults.get("Service", FULLNAME + "-gate-headless");
        assertThat(headless.path("spec").path("clusterIP").asText()).isEqualTo("None");
        assertThat(gate.path("spec").path("serviceName").asText()).isEqualTo(FULLNAME + "-gate-headless");
        assertThat(headless.path("spec").path("selector")).isEqualTo(gate.path("spec").path("selector")
                .path("matchLabels"));

        List<String> envNames = new ArrayList<>();
        container(gate).path("env").forEach(e -> envNames.add(e.path("name").asText()));
        String variable = EnvironmentOverrides.toVariable(NodeConfig.HTTP_ADVERTISED_HOST_CONFIG);
        assertThat(EnvironmentOverrides.toKey(variable)).isEqualTo(NodeConfig.HTTP_ADVERTISED_HOST_CONFIG);
        assertThat(envNames).contains("POD_NAME", "POD_NAMESPACE", variable);
        // Kubernetes expands $(VAR) only from variables defined earlier in the list
        assertThat(envNames.indexOf("POD_NAME")).isLessThan(envNames.indexOf(variable));
        assertThat(env(gate, "POD_NAME").path("valueFrom").path("fieldRef").path("fieldPath").asText())
                .isEqualTo("metadata.name");
        assertThat(env(gate, variable).path("value").asText())
                .isEqualTo("$(POD_NAME)." + FULLNAME + "-gate-headless.$(POD_NAMESPACE).svc.cluster.local");
    }

    @Test
    void shouldGiveTheGateTimeToCloseStreamsAndABudgetForDisruptions() {
        JsonNode gate = defaults.get("StatefulSet", FULLNAME + "-gate");
        long shutdownMs = new NodeConfig(properties(defaults.get("ConfigMap", FULLNAME))).shutdownTimeoutMs();
        assertThat(podSpec(gate).path("terminationGracePeriodSeconds").asLong() * 1000).isGreaterThan(shutdownMs);

        JsonNode pdb = defaults.get("PodDisruptionBudget", FULLNAME + "-gate");
        assertThat(pdb.path("spec").path("maxUnavailable").asInt()).isEqualTo(1);
        assertThat(pdb.path("spec").path("selector").path("matchLabels"))
                .isEqualTo(gate.path("spec").path("selector").path("matchLabels"));
    }

    @Test
    void shouldRunTheExecutorAndReconcilerAsDeploymentsOfTheirOwnRole() {
        JsonNode executor = defaults.get("Deployment", FULLNAME + "-executor");
        JsonNode reconciler = defaults.get("Deployment", FULLNAME + "-reconciler");
        assertThat(args(executor)).contains("run", "--roles=executor").doesNotContain("--roles=gate");
        assertThat(args(reconciler)).contains("run", "--roles=reconciler");
        assertThat(executor.path("spec").path("replicas").asInt()).isEqualTo(2);
        assertThat(overridden.get("Deployment", FULLNAME + "-executor").path("spec").path("replicas").asInt())
                .isEqualTo(5);
        assertThat(executor.path("spec").path("selector").path("matchLabels"))
                .isNotEqualTo(reconciler.path("spec").path("selector").path("matchLabels"));
    }

    @Test
    void shouldPassEveryProcessTheMountedConfigFileInArgumentsTheCliAccepts() {
        for (ChartRender render : List.of(defaults, overridden)) {
            for (JsonNode workload : render.workloads()) {
                List<String> args = args(workload);
                assertThat(args).containsSequence("--config", CONFIG_FILE);
                assertThat(mountPath(workload, "config")).isEqualTo(CONFIG_FILE);
                CommandLine cli = Main.commandLine(new PrintWriter(new StringWriter()),
                        new PrintWriter(new StringWriter()));
                // throws ParameterException on an option the CLI does not have
                CommandLine.ParseResult parsed = cli.parseArgs(args.toArray(String[]::new));
                assertThat(parsed.hasSubcommand()).isTrue();
            }
        }
    }

    @Test
    void shouldProbeHealthAndAnnounceMetricsOnEveryLongRunningRole() {
        for (JsonNode workload : defaults.workloads()) {
            if ("Job".equals(workload.path("kind").asText())) {
                continue;
            }
            JsonNode container = container(workload);
            assertThat(container.path("readinessProbe").path("httpGet").path("path").asText())
                    .isEqualTo("/health/ready");
            assertThat(container.path("livenessProbe").path("httpGet").path("path").asText())
                    .isEqualTo("/health/live");
            assertThat(container.path("readinessProbe").path("httpGet").path("port").asText()).isEqualTo("http");
            String httpPort = properties(defaults.get("ConfigMap", FULLNAME)).get(CommonConfig.HTTP_PORT_CONFIG);
            assertThat(containerPort(container, "http")).isEqualTo(httpPort);

            JsonNode annotations = workload.path("spec").path("template").path("metadata").path("annotations");
            assertThat(annotations.path("prometheus.io/scrape").asText()).isEqualTo("true");
            assertThat(annotations.path("prometheus.io/path").asText()).isEqualTo("/metrics");
            assertThat(annotations.path("prometheus.io/port").asText()).isEqualTo(httpPort);
        }
    }

    @Test
    void shouldCreateTopicsInAPreInstallHookWithTheConfiguredPartitions() {
        // Helm itself classifies the Job (and its ConfigMap) as hooks: they are not in the release manifest
        ChartRender original = ChartRender.renderOriginal(Map.of());
        assertThat(original.ofKind("Job")).isEmpty();
        assertThat(original.names()).doesNotContain("ConfigMap/" + FULLNAME + "-topics")
                .contains("ConfigMap/" + FULLNAME);

        JsonNode job = overridden.get("Job", FULLNAME + "-topics");
        String hooks = job.path("metadata").path("annotations").path(ChartRender.VISIBLE_HOOK).asText();
        assertThat(List.of(hooks.split(","))).contains("pre-install", "pre-upgrade");
        List<String> args = args(job);
        assertThat(args).startsWith("topics", "create");
        assertThat(args).containsSequence("--partitions", "24");
        assertThat(args).containsSequence("--replication-factor", "2");
        assertThat(args).containsSequence("--bootstrap-servers", "kafka-0.kafka:9092,kafka-1.kafka:9092");

        // the job's own configuration exists before it: a hook ConfigMap of a lower weight
        String configMapName = podSpec(job).path("volumes").findValue("configMap").path("name").asText();
        JsonNode configMap = overridden.get("ConfigMap", configMapName);
        String weight = ChartRender.VISIBLE_HOOK + "-weight";
        assertThat(configMap.path("metadata").path("annotations").path(ChartRender.VISIBLE_HOOK).asText())
                .contains("pre-install");
        assertThat(configMap.path("metadata").path("annotations").path(weight).asInt())
                .isLessThan(job.path("metadata").path("annotations").path(weight).asInt());
        assertThat(properties(configMap)).isEqualTo(properties(overridden.get("ConfigMap", FULLNAME)));
        assertThat(properties(configMap)).containsEntry(CommonConfig.TOPIC_PARTITIONS_CONFIG, "24");
    }

    @Test
    void shouldRenderOnlyConfigurationKeysActiongateDefines() {
        for (ChartRender render : List.of(defaults, overridden)) {
            Map<String, String> config = properties(render.get("ConfigMap", FULLNAME));
            assertThat(config).isNotEmpty();
            assertThat(KEYS.unknown(config.keySet())).isEmpty();
        }
        Map<String, String> config = properties(overridden.get("ConfigMap", FULLNAME));
        assertThat(config).containsEntry("connectors.webhook.credential", "file:/etc/actiongate/secrets/webhook-token")
                .containsEntry("executor.consumer.session.timeout.ms", "45000")
                .containsEntry(CommonConfig.BOOTSTRAP_SERVERS_CONFIG, "kafka-0.kafka:9092,kafka-1.kafka:9092");
    }

    @Test
    void shouldReportAMisspeltConfigurationKey() {
        ChartRender typo = ChartRender.render(Map.of("config.gate\\.aproval\\.timeout", "1h"));
        Map<String, String> config = properties(typo.get("ConfigMap", FULLNAME));
        assertThat(KEYS.unknown(config.keySet())).containsExactly("gate.aproval.timeout");
    }

    @Test
    void shouldRenderValuesEveryRoleConfigAccepts() {
        Map<String, String> config = new HashMap<>(properties(overridden.get("ConfigMap", FULLNAME)));
        // the mounted directory exists only in the pod
        assertThat(config.remove(GateConfig.TRUSTED_KEYS_DIR_CONFIG)).isEqualTo("/etc/actiongate/trusted-keys");
        CommonConfig common = new CommonConfig(config);
        assertThat(common.topicPartitions()).isEqualTo(24);
        assertThat(common.topicReplicationFactor()).isEqualTo((short) 2);
        assertThat(GateConfig.fromStrings(config).streamsOverrides()).containsEntry("num.stream.threads", "4");
        assertThat(new ExecutorConfig(config).bootstrapServers()).isEqualTo("kafka-0.kafka:9092,kafka-1.kafka:9092");
        assertThat(new ReconcilerConfig(config).getString(ReconcilerConfig.TOPIC_PREFIX_CONFIG))
                .isEqualTo("actiongate.");

        Map<String, String> plain = properties(defaults.get("ConfigMap", FULLNAME));
        assertThat(GateConfig.fromStrings(plain).approvalTimeout()).hasHours(24);
    }

    @Test
    void shouldMountSecretsFromExistingSecretsWithoutRenderingAnySecretData() {
        for (ChartRender render : List.of(defaults, overridden)) {
            assertThat(render.ofKind("Secret")).isEmpty();
        }
        JsonNode gate = overridden.get("StatefulSet", FULLNAME + "-gate");
        assertThat(secretName(gate, "trusted-keys")).isEqualTo("approver-keys");
        assertThat(mountPath(gate, "trusted-keys")).isEqualTo(
                properties(overridden.get("ConfigMap", FULLNAME)).get(GateConfig.TRUSTED_KEYS_DIR_CONFIG));

        for (String role : List.of("executor", "reconciler")) {
            JsonNode deployment = overridden.get("Deployment", FULLNAME + "-" + role);
            assertThat(secretName(deployment, "connector-secrets")).isEqualTo("connector-credentials");
            assertThat(mountPath(deployment, "connector-secrets")).isEqualTo("/etc/actiongate/secrets");
            assertThat(volume(defaults.get("Deployment", FULLNAME + "-" + role), "connector-secrets")).isNull();
        }
        assertThat(volume(defaults.get("StatefulSet", FULLNAME + "-gate"), "trusted-keys")).isNull();
        assertThat(properties(defaults.get("ConfigMap", FULLNAME))).doesNotContainKey(
                GateConfig.TRUSTED_KEYS_DIR_CONFIG);
    }

    @Test
    void shouldTakeKafkaCredentialsFromASecretReferenceInTheEnvironment() {
        String variable = "ACTIONGATE_KAFKA_SASL_JAAS_CONFIG";
        assertThat(KEYS.unknown(Set.of(EnvironmentOverrides.toKey(variable)))).isEmpty();
        assertThat(overridden.workloads()).hasSize(4).allSatisfy(workload -> {
            JsonNode ref = env(workload, variable).path("valueFrom").path("secretKeyRef");
            assertThat(ref.path("name").asText()).isEqualTo("kafka-credentials");
            assertThat(ref.path("key").asText()).isEqualTo("jaas.config");
        });
    }

    @Test
    void shouldRunEveryContainerAsNonRootOnAReadOnlyRootWithAWritableTmp() {
        for (JsonNode workload : defaults.workloads()) {
            assertThat(podSpec(workload).path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
            JsonNode container = container(workload);
            assertThat(container.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
            assertThat(container.path("securityContext").path("allowPrivilegeEscalation").asBoolean()).isFalse();
            assertThat(mountPath(workload, "tmp")).isEqualTo("/tmp");
            assertThat(volume(workload, "tmp").has("emptyDir")).isTrue();
            assertThat(container.path("image").asText()).startsWith("actiongate:");
        }
    }

    @Test
    void shouldRunTheApprovalServiceOnlyWhenEnabledWithItsKeyAndClientSecretFromSecrets() {
        assertThat(defaults.ofKind("Deployment")).noneMatch(d -> d.path("metadata").path("name").asText()
                .endsWith("-approver"));
        Map<String, Object> sets = new LinkedHashMap<>();
        sets.put("approver.enabled", true);
        sets.put("approver.publicUrl", "https://approve.acme.example");
        sets.put("approver.oidc.issuer", "https://idp.acme.example/realms/acme");
        sets.put("approver.oidc.clientId", "actiongate-approver");
        sets.put("approver.oidc.clientSecret.existingSecret", "approver-oidc");
        sets.put("approver.signingKey.existingSecret", "approver-signing-key");
        sets.put("approver.signingKey.keyId", "approver-1");
        sets.put("approver.stateKey.existingSecret", "approver-state-keys");
        ChartRender render = ChartRender.render(sets);

        JsonNode approver = render.get("Deployment", FULLNAME + "-approver");
        assertThat(args(approver)).containsSequence("--config", CONFIG_FILE).contains("--roles=approver");
        CommandLine cli = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        assertThat(cli.parseArgs(args(approver).toArray(String[]::new)).hasSubcommand()).isTrue();
        assertThat(secretName(approver, "approver-key")).isEqualTo("approver-signing-key");
        assertThat(mountPath(approver, "approver-key")).isEqualTo("/etc/actiongate/approver-key");
        JsonNode secretRef = env(approver, "ACTIONGATE_APPROVER_OIDC_CLIENT_SECRET").path("valueFrom")
                .path("secretKeyRef");
        assertThat(secretRef.path("name").asText()).isEqualTo("approver-oidc");
        assertThat(render.ofKind("Secret")).isEmpty();
        assertThat(render.get("Service", FULLNAME + "-approver").path("spec").path("ports").get(0)
                .path("targetPort").asText()).isEqualTo("review");

        Map<String, String> config = properties(render.get("ConfigMap", FULLNAME));
        assertThat(KEYS.unknown(config.keySet())).isEmpty();
        assertThat(KEYS.unknown(Set.of(EnvironmentOverrides.toKey("ACTIONGATE_APPROVER_OIDC_CLIENT_SECRET"))))
                .isEmpty();
        ApproverConfig parsed = ApproverConfig.from(config);
        assertThat(parsed.signingKeyFile()).hasToString("/etc/actiongate/approver-key/approver-1.key");
        assertThat(secretName(approver, "approver-state-key")).isEqualTo("approver-state-keys");
        assertThat(mountPath(approver, "approver-state-key")).isEqualTo("/etc/actiongate/approver-state-key");
        assertThat(parsed.stateKeyFile()).hasValueSatisfying(f -> assertThat(f)
                .hasToString("/etc/actiongate/approver-state-key/state.keys"));
        assertThat(parsed.origin()).isEqualTo("https://approve.acme.example");
        assertThat(parsed.bindAddress()).isEqualTo("0.0.0.0");
        // the other roles ignore the approver.* keys of the shared ConfigMap
        assertThat(new CommonConfig(config).unrecognizedKeys()).isEmpty();
    }

    @Test
    void shouldRunTheNotifierOnlyWhenEnabledWithItsSecretsMountedAndTheApproversReviewPages() {
        assertThat(defaults.workloads()).noneMatch(d -> d.path("metadata").path("name").asText()
                .endsWith("-notifier"));
        Map<String, Object> sets = new LinkedHashMap<>(HelmChartKafkaTest.everyRole());
        sets.put("notifier.enabled", true);
        sets.put("notifier.replicas", 2);
        sets.put("notifier.secrets.existingSecret", "notifier-secrets");
        sets.put("config.notifier\\.slack\\.approvals\\.url", "file:/etc/actiongate/notifier-secrets/slack");
        sets.put("config.notifier\\.smtp\\.host", "smtp.acme.example");
        sets.put("config.notifier\\.smtp\\.from", "actiongate@acme.example");
        sets.put("config.notifier\\.smtp\\.allowed-domains", "acme.example");
        ChartRender render = ChartRender.render(sets);

        JsonNode notifier = render.get("Deployment", FULLNAME + "-notifier");
        assertThat(notifier.path("spec").path("replicas").asInt()).isEqualTo(2);
        assertThat(args(notifier)).containsSequence("--config", CONFIG_FILE).contains("--roles=notifier");
        CommandLine cli = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        assertThat(cli.parseArgs(args(notifier).toArray(String[]::new)).hasSubcommand()).isTrue();
        assertThat(secretName(notifier, "notifier-secrets")).isEqualTo("notifier-secrets");
        assertThat(mountPath(notifier, "notifier-secrets")).isEqualTo("/etc/actiongate/notifier-secrets");
        assertThat(env(notifier, "ACTIONGATE_NOTIFIER_INSTANCE_ID").path("value").asText()).isEqualTo("$(POD_NAME)");
        assertThat(render.ofKind("Secret")).isEmpty();

        Map<String, String> config = properties(render.get("ConfigMap", FULLNAME));
        assertThat(KEYS.unknown(config.keySet())).isEmpty();
        assertThat(config).containsEntry(NotifierConfig.REVIEW_URL,
                "https://approve.acme.example/review/{task_id}/{tool_call_id}");
        assertThat(new CommonConfig(config).unrecognizedKeys()).isEmpty();
        // without the approver the review page must be given
        sets.put("approver.enabled", false);
        sets.put("mcpGateway.reviewUrl", "https://approve.acme.example/review/{task_id}/{tool_call_id}");
        assertThatThrownBy(() -> ChartRender.render(sets)).hasMessageContaining("notifier.reviewUrl is required");
    }

    @Test
    void shouldPassHelmLint() {
        LintResult lint = new Helm(ChartRender.chart()).lint().strict().call();
        assertThat(lint.isFailed()).as("helm lint --strict: %s", lint.getMessages()).isFalse();
    }

    private static JsonNode env(JsonNode workload, String name) {
        for (JsonNode e : container(workload).path("env")) {
            if (name.equals(e.path("name").asText())) {
                return e;
            }
        }
        throw new AssertionError("no env " + name);
    }

    private static String mountPath(JsonNode workload, String volume) {
        for (JsonNode m : container(workload).path("volumeMounts")) {
            if (volume.equals(m.path("name").asText())) {
                return m.path("mountPath").asText();
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

    private static String secretName(JsonNode workload, String volume) {
        JsonNode v = volume(workload, volume);
        return v == null ? null : v.path("secret").path("secretName").asText();
    }

    private static String containerPort(JsonNode container, String name) {
        for (JsonNode p : container.path("ports")) {
            if (name.equals(p.path("name").asText())) {
                return p.path("containerPort").asText();
            }
        }
        return null;
    }
}
