package io.actiongate.helm;

import static io.actiongate.helm.ChartRender.args;
import static io.actiongate.helm.ChartRender.container;
import static io.actiongate.helm.ChartRender.properties;
import static io.actiongate.helm.HelmChartKafkaTest.mount;
import static io.actiongate.helm.HelmChartKafkaTest.volume;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.cli.Main;
import io.actiongate.config.CommonConfig;
import io.actiongate.mcp.GatewayConfig;
import picocli.CommandLine;

/**
 * The chart's MCP gateway, the Ingresses in front of the review pages and the gateway, and a NetworkPolicy that lets
 * every Service's target port through.
 */
class HelmChartGatewayTest {

    private static final String FULLNAME = ChartRender.RELEASE + "-actiongate";
    private static final String GATEWAY = FULLNAME + "-mcp-gateway";

    private static Map<String, Object> gateway() {
        Map<String, Object> sets = new LinkedHashMap<>();
        sets.put("mcpGateway.enabled", true);
        sets.put("mcpGateway.hostTokens.existingSecret", "mcp-host-tokens");
        sets.put("mcpGateway.reviewUrl", "https://approve.acme.example/review/{task_id}/{tool_call_id}");
        sets.put("mcpGateway.upstreams.notes.url", "http://notes:3000");
        sets.put("mcpGateway.upstreams.notes.provider", "webhook");
        sets.put("mcpGateway.upstreams.notes.operations", "notes_post:post_update");
        sets.put("mcpGateway.upstreams.tickets.url", "https://tickets.internal:8443");
        sets.put("mcpGateway.upstreams.tickets.provider", "webhook");
        sets.put("mcpGateway.upstreams.tickets.endpoint", "/v2/mcp");
        return sets;
    }

    @Test
    void shouldRenderNoGatewayByDefault() {
        ChartRender defaults = ChartRender.render(Map.of());
        assertThat(defaults.names()).noneMatch(n -> n.contains("mcp-gateway"));
        assertThat(defaults.ofKind("Ingress")).isEmpty();
        assertThat(properties(defaults.get("ConfigMap", FULLNAME))).doesNotContainKey(GatewayConfig.UPSTREAMS_CONFIG);
    }

    @Test
    void shouldRunTheGatewayWithItsUpstreamsTokensProbesAndDisruptionBudget() {
        ChartRender render = ChartRender.render(gateway());
        JsonNode deployment = render.get("Deployment", GATEWAY);
        assertThat(deployment.path("spec").path("replicas").asInt()).isEqualTo(2);
        List<String> args = args(deployment);
        assertThat(args).contains("run", "--roles=mcp-gateway");
        CommandLine cli = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        assertThat(cli.parseArgs(args.toArray(String[]::new)).hasSubcommand()).isTrue();

        // the configuration is one the gateway accepts, with the tokens file inside the mounted Secret
        Map<String, String> config = properties(render.get("ConfigMap", FULLNAME));
        assertThat(new ConfigKeys().unknown(config.keySet())).isEmpty();
        assertThat(new CommonConfig(config).unrecognizedKeys()).isEmpty();
        GatewayConfig parsed = GatewayConfig.from(config);
        assertThat(parsed.port()).isEqualTo(8090);
        assertThat(parsed.host()).isEqualTo("0.0.0.0");
        assertThat(parsed.reviewUrl()).isEqualTo("https://approve.acme.example/review/{task_id}/{tool_call_id}");
        assertThat(parsed.upstreams()).extracting(GatewayConfig.UpstreamConfig::name)
                .containsExactly("notes", "tickets");
        assertThat(parsed.upstreams().get(0).operation("notes_post")).isEqualTo("post_update");
        assertThat(parsed.upstreams().get(1).endpoint()).isEqualTo("/v2/mcp");
        assertThat(parsed.upstreams().get(1).url()).isEqualTo("https://tickets.internal:8443");
        JsonNode tokens = mount(deployment, "mcp-tokens");
        assertThat(tokens.has("subPath")).isFalse();
        assertThat(parsed.tokensFile()).isEqualTo(Path.of(tokens.path("mountPath").asText(), "tokens"));
        assertThat(volume(deployment, "mcp-tokens").path("secret").path("secretName").asText())
                .isEqualTo("mcp-host-tokens");
        // the gateway holds no provider credential: effects run in the executor
        assertThat(volume(deployment, "connector-secrets")).isNull();

        JsonNode container = container(deployment);
        assertThat(port(container, "mcp")).isEqualTo(8090);
        assertThat(port(container, "http")).isEqualTo(8080);
        assertThat(container.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/health/ready");
        assertThat(container.path("readinessProbe").path("httpGet").path("port").asText()).isEqualTo("http");
        assertThat(container.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/health/live");

        JsonNode service = render.get("Service", GATEWAY);
        assertThat(service.path("spec").path("ports").get(0).path("targetPort").asText()).isEqualTo("mcp");
        assertThat(service.path("spec").path("ports").get(0).path("port").asInt()).isEqualTo(8090);
        Map<String, String> podLabels = strings(deployment.path("spec").path("template").path("metadata")
                .path("labels"));
        assertThat(podLabels.entrySet()).containsAll(strings(service.path("spec").path("selector")).entrySet());
        JsonNode pdb = render.get("PodDisruptionBudget", GATEWAY);
        assertThat(pdb.path("spec").path("maxUnavailable").asInt()).isEqualTo(1);
        assertThat(pdb.path("spec").path("selector").path("matchLabels"))
                .isEqualTo(deployment.path("spec").path("selector").path("matchLabels"));
        // the gateway's pods are selected by no other role's Service
        assertThat(render.get("Service", FULLNAME + "-gate").path("spec").path("selector")
                .path("app.kubernetes.io/component").asText()).isEqualTo("gate");

        Map<String, Object> noPdb = gateway();
        noPdb.put("mcpGateway.podDisruptionBudget.enabled", false);
        assertThat(ChartRender.render(noPdb).names()).doesNotContain("PodDisruptionBudget/" + GATEWAY);
    }

    @Test
    void shouldRefuseAGatewayWithoutTokensUpstreamsOrReviewPage() {
        Map<String, Object> noTokens = gateway();
        noTokens.remove("mcpGateway.hostTokens.existingSecret");
        assertThatThrownBy(() -> ChartRender.render(noTokens)).hasMessageContaining("hostTokens.existingSecret");
        Map<String, Object> noUpstreams = new LinkedHashMap<>(Map.of("mcpGateway.enabled", true,
                "mcpGateway.hostTokens.existingSecret", "t", "mcpGateway.reviewUrl", "https://r"));
        assertThatThrownBy(() -> ChartRender.render(noUpstreams)).hasMessageContaining("upstreams");
        Map<String, Object> noReview = gateway();
        noReview.remove("mcpGateway.reviewUrl");
        assertThatThrownBy(() -> ChartRender.render(noReview)).hasMessageContaining("reviewUrl");
        Map<String, Object> badUrl = gateway();
        badUrl.put("mcpGateway.upstreams.notes.url", "notes:3000");
        assertThatThrownBy(() -> ChartRender.render(badUrl)).hasMessageContaining("schema");
    }

    @Test
    void shouldPointTheGatewayAtTheApprovalServiceReviewPageWhenBothRun() {
        Map<String, Object> sets = HelmChartKafkaTest.everyRole();
        Map<String, String> config = properties(ChartRender.render(sets).get("ConfigMap", FULLNAME));
        assertThat(GatewayConfig.from(config).reviewUrl())
                .isEqualTo("https://approve.acme.example/review/{task_id}/{tool_call_id}");
    }

    @Test
    void shouldPutIngressesWithTlsInFrontOfTheReviewPagesAndTheGateway() {
        Map<String, Object> sets = HelmChartKafkaTest.everyRole();
        sets.put("approver.ingress.enabled", true);
        sets.put("approver.ingress.className", "nginx");
        sets.put("approver.ingress.tlsSecretName", "approve-tls");
        sets.put("approver.ingress.annotations.cert-manager\\.io/cluster-issuer", "letsencrypt");
        sets.put("mcpGateway.ingress.enabled", true);
        sets.put("mcpGateway.ingress.host", "mcp.acme.example");
        sets.put("mcpGateway.ingress.tlsSecretName", "mcp-tls");
        ChartRender render = ChartRender.render(sets);
        assertThat(render.ofKind("Ingress")).hasSize(2);

        JsonNode approver = render.get("Ingress", FULLNAME + "-approver");
        assertThat(approver.path("spec").path("ingressClassName").asText()).isEqualTo("nginx");
        assertThat(approver.path("metadata").path("annotations").path("cert-manager.io/cluster-issuer").asText())
                .isEqualTo("letsencrypt");
        // the host is approver.publicUrl's, the origin people open and the WebAuthn relying party
        assertIngress(render, approver, "approve.acme.example", "approve-tls");
        JsonNode mcp = render.get("Ingress", GATEWAY);
        assertThat(mcp.path("spec").has("ingressClassName")).isFalse();
        assertIngress(render, mcp, "mcp.acme.example", "mcp-tls");

        Map<String, Object> plain = HelmChartKafkaTest.everyRole();
        plain.put("approver.ingress.enabled", true);
        plain.put("approver.ingress.host", "review.internal");
        JsonNode noTls = ChartRender.render(plain).get("Ingress", FULLNAME + "-approver");
        assertThat(noTls.path("spec").has("tls")).isFalse();
        assertThat(noTls.path("spec").path("rules").get(0).path("host").asText()).isEqualTo("review.internal");

        Map<String, Object> noHost = HelmChartKafkaTest.everyRole();
        noHost.put("mcpGateway.ingress.enabled", true);
        assertThatThrownBy(() -> ChartRender.render(noHost)).hasMessageContaining("mcpGateway.ingress.host");
        // an Ingress of a role that is off is not rendered
        assertThat(ChartRender.render(Map.of("approver.ingress.enabled", true)).ofKind("Ingress")).isEmpty();
    }

    private static void assertIngress(ChartRender render, JsonNode ingress, String host, String tlsSecret) {
        JsonNode tls = ingress.path("spec").path("tls").get(0);
        assertThat(tls.path("secretName").asText()).isEqualTo(tlsSecret);
        assertThat(tls.path("hosts").get(0).asText()).isEqualTo(host);
        JsonNode rule = ingress.path("spec").path("rules").get(0);
        assertThat(rule.path("host").asText()).isEqualTo(host);
        JsonNode backend = rule.path("http").path("paths").get(0).path("backend").path("service");
        // the backend is a rendered Service and one of its named ports
        JsonNode service = render.get("Service", backend.path("name").asText());
        List<String> ports = new ArrayList<>();
        service.path("spec").path("ports").forEach(p -> ports.add(p.path("name").asText()));
        assertThat(ports).contains(backend.path("port").path("name").asText());
    }

    @Test
    void shouldLetEveryServiceTargetPortThroughTheNetworkPolicy() {
        Map<String, Object> sets = HelmChartKafkaTest.everyRole();
        sets.put("networkPolicy.enabled", true);
        sets.put("networkPolicy.reviewFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name",
                "ingress-nginx");
        sets.put("networkPolicy.mcpFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name",
                "agents-hosts");
        ChartRender render = ChartRender.render(sets);
        JsonNode policy = render.get("NetworkPolicy", FULLNAME);
        Map<String, JsonNode> rules = new HashMap<>();
        policy.path("spec").path("ingress").forEach(r -> r.path("ports").forEach(p ->
                rules.put(p.path("port").asText(), r)));
        // the review pages (Service target port `review`) and the gateway (`mcp`) are reachable, not only `http`
        for (JsonNode service : render.ofKind("Service")) {
            for (JsonNode port : service.path("spec").path("ports")) {
                assertThat(rules).as("%s port %s", service.path("metadata").path("name").asText(),
                        port.path("targetPort").asText()).containsKey(port.path("targetPort").asText());
            }
        }
        assertThat(rules.get("review").path("from").toString()).contains("ingress-nginx")
                .doesNotContain("agents-hosts");
        assertThat(rules.get("mcp").path("from").toString()).contains("agents-hosts")
                .doesNotContain("ingress-nginx");
        // the http port stays limited to the release's pods and ingressFrom
        assertThat(rules.get("http").path("from")).hasSize(1);
    }

    private static int port(JsonNode container, String name) {
        for (JsonNode p : container.path("ports")) {
            if (name.equals(p.path("name").asText())) {
                return p.path("containerPort").asInt();
            }
        }
        throw new AssertionError("no port " + name);
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> map = new HashMap<>();
        object.properties().forEach(e -> map.put(e.getKey(), e.getValue().asText()));
        return map;
    }
}
