package io.actiongate.connector.spi;

import io.actiongate.connector.testing.LocalHttpServer;
import io.actiongate.connector.testing.LogCapture;
import io.actiongate.connector.testing.Requests;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConnectorRegistryTest {

    static final String SECRET = "registry-secret-9f8e7d6c";

    @TempDir
    Path dir;

    private Map<String, String> config(String httpBase, int smtpPort) throws IOException {
        Path secret = Files.writeString(dir.resolve("token"), SECRET + "\n");
        Map<String, String> config = new HashMap<>();
        config.put("connectors.webhook.base-url", httpBase);
        config.put("connectors.webhook.operations", "notify");
        config.put("connectors.webhook.credential", "file:" + secret);
        config.put("connectors.webhook.response-timeout-ms", "5000");
        config.put("connectors.x.base-url", httpBase);
        config.put("connectors.x.credential", "file:" + secret);
        config.put("connectors.x.user-id", "42");
        config.put("connectors.smtp.host", "127.0.0.1");
        config.put("connectors.smtp.port", String.valueOf(smtpPort));
        config.put("connectors.smtp.from", "gate@actiongate.test");
        config.put("connectors.smtp.username", "gate");
        config.put("connectors.smtp.password", "file:" + secret);
        config.put("connectors.smtp.allowed-domains", "example.com");
        config.put("connectors.cli.enabled", "true");
        config.put("other.key", "ignored");
        return config;
    }

    @Test
    void shouldFindAllFourConnectorsThroughServiceLoader() throws IOException {
        try (ConnectorRegistry registry = ConnectorRegistry.load(config("http://127.0.0.1:9", 25))) {
            assertThat(registry.providers()).containsExactlyInAnyOrder("webhook", "smtp", "x", "cli");
            assertThat(registry.find("webhook").orElseThrow().classifier().classify("notify", "{}").kind())
                    .isEqualTo(Classification.Kind.EFFECT);
            assertThat(registry.find("smtp").orElseThrow().classifier().classify("send_email", "{}").kind())
                    .isEqualTo(Classification.Kind.EFFECT);
            assertThat(registry.find("x").orElseThrow().classifier().classify("post", "{}").kind())
                    .isEqualTo(Classification.Kind.EFFECT);
            assertThat(registry.find("cli").orElseThrow().classifier()
                    .classify("kubectl", "{\"argv\":[\"kubectl\",\"get\",\"pods\"]}").kind())
                    .isEqualTo(Classification.Kind.READ);
        }
    }

    @Test
    void shouldSkipDisabledConnectors() throws IOException {
        Map<String, String> config = config("http://127.0.0.1:9", 25);
        config.put("connectors.smtp.enabled", "false");
        config.remove("connectors.smtp.host");

        try (ConnectorRegistry registry = ConnectorRegistry.load(config)) {
            assertThat(registry.providers()).doesNotContain("smtp").contains("webhook", "x", "cli");
        }
    }

    @Test
    void shouldSkipProvidersThatHaveNoSettingsAtAll() throws IOException {
        Map<String, String> config = config("http://127.0.0.1:9", 25);
        config.keySet().removeIf(key -> key.startsWith("connectors.x.") || key.startsWith("connectors.cli."));

        try (ConnectorRegistry registry = ConnectorRegistry.load(config)) {
            assertThat(registry.providers()).containsExactlyInAnyOrder("webhook", "smtp");
        }
    }

    @Test
    void shouldNameTheProviderAndSettingWhenConfigurationIsIncomplete() throws IOException {
        Map<String, String> config = config("http://127.0.0.1:9", 25);
        config.remove("connectors.webhook.base-url");

        assertThatThrownBy(() -> ConnectorRegistry.load(config))
                .hasMessageContaining("webhook").hasMessageContaining("base-url").hasMessageNotContaining(SECRET);
    }

    @Test
    void shouldNeverLeakTheCredentialIntoResultsOrLogs() throws IOException {
        try (LocalHttpServer echo = new LocalHttpServer(); LogCapture logs = new LogCapture()) {
            echo.answer(exchange -> LocalHttpServer.respond(exchange, 401, Map.of(),
                    "{\"error\":\"bad credential\",\"got\":\"" + exchange.getRequestHeaders().getFirst("Authorization")
                            + "\"}"));
            List<Object> seen = new ArrayList<>();
            try (ConnectorRegistry registry = ConnectorRegistry.load(config(echo.baseUrl(),
                    LocalHttpServer.closedPort()))) {
                seen.add(registry.find("webhook").orElseThrow()
                        .dispatch(Requests.dispatch("webhook", "notify", "{\"a\":1}")));
                seen.add(registry.find("webhook").orElseThrow()
                        .lookup(Requests.lookup("webhook", "notify", "k", null)));
                seen.add(registry.find("x").orElseThrow().dispatch(Requests.dispatch("x", "post", "{\"text\":\"hi\"}")));
                seen.add(registry.find("x").orElseThrow().lookup(Requests.lookup("x", "post", "k", "{\"text\":\"hi\"}")));
                seen.add(registry.find("smtp").orElseThrow().dispatch(Requests.dispatch("smtp", "send_email",
                        "{\"to\":\"a@example.com\",\"subject\":\"s\",\"body\":\"b\"}")));
            }

            assertThat(echo.requests()).hasSizeGreaterThanOrEqualTo(4)
                    .allSatisfy(r -> assertThat(r.header("Authorization")).isEqualTo("Bearer " + SECRET));
            assertThat(seen).hasSize(5).allSatisfy(result -> assertThat(result.toString()).doesNotContain(SECRET));
            assertThat(logs.lines()).isNotEmpty().noneMatch(line -> line.contains(SECRET));
        }
    }

    /** Every credential setting points at a file this machine does not have: as on a gate pod. */
    private static Map<String, String> unresolvableCredentials() {
        Map<String, String> config = new HashMap<>();
        config.put("connectors.webhook.base-url", "http://127.0.0.1:9");
        config.put("connectors.webhook.operations", "notify");
        config.put("connectors.webhook.read-operations", "status");
        config.put("connectors.webhook.credential", "file:/nonexistent/actiongate/webhook-token");
        config.put("connectors.x.credential", "file:/nonexistent/actiongate/x-token");
        config.put("connectors.smtp.host", "127.0.0.1");
        config.put("connectors.smtp.from", "gate@actiongate.test");
        config.put("connectors.smtp.username", "gate");
        config.put("connectors.smtp.password", "file:/nonexistent/actiongate/smtp-password");
        config.put("connectors.smtp.allowed-domains", "example.com");
        config.put("connectors.cli.gh.path", "/nonexistent/bin/gh");
        config.put("connectors.cli.gh.secret-env.GH_TOKEN", "env:ACTIONGATE_TEST_UNSET_GH_TOKEN");
        return config;
    }

    @Test
    void shouldBuildEveryClassifierWithoutResolvingACredential() {
        Map<String, OperationClassifier> classifiers = ConnectorRegistry.classifiers(unresolvableCredentials());

        assertThat(classifiers).containsOnlyKeys("webhook", "smtp", "x", "cli");
        assertThat(classifiers.get("webhook").classify("status", "{}").kind()).isEqualTo(Classification.Kind.READ);
        assertThat(classifiers.get("webhook").classify("notify", "{}").kind()).isEqualTo(Classification.Kind.EFFECT);
        assertThat(classifiers.get("smtp").validate("send_email",
                "{\"to\":\"a@example.com\",\"subject\":\"s\",\"body\":\"b\"}").valid()).isTrue();
        assertThat(classifiers.get("smtp").validate("send_email",
                "{\"to\":\"a@evil.com\",\"subject\":\"s\",\"body\":\"b\"}").valid()).isFalse();
        assertThat(classifiers.get("x").classify("post", "{\"text\":\"hi\"}").kind())
                .isEqualTo(Classification.Kind.EFFECT);
        assertThat(classifiers.get("cli").classify("kubectl", "{\"argv\":[\"kubectl\",\"get\",\"pods\"]}").kind())
                .isEqualTo(Classification.Kind.READ);
        assertThat(classifiers.get("cli").classify("kubectl", "{\"argv\":[\"kubectl\",\"config\",\"view\"]}")
                .kind()).isEqualTo(Classification.Kind.REJECTED_AUTH_OR_CONFIG);
        assertThat(classifiers).allSatisfy((provider, classifier) -> assertThat(classifier.provider()).isEqualTo(provider));
        assertThat(classifiers.get("cli").classifiesPerInput()).isTrue();
        assertThat(List.of("webhook", "smtp", "x")).allSatisfy(p ->
                assertThat(classifiers.get(p).classifiesPerInput()).isFalse());
    }

    @Test
    void shouldStillRefuseToBuildFullConnectorsWhoseCredentialsDoNotResolve() {
        for (String provider : List.of("webhook", "x", "smtp", "cli")) {
            Map<String, String> only = new HashMap<>();
            unresolvableCredentials().forEach((key, value) -> {
                if (key.startsWith("connectors." + provider + ".")) {
                    only.put(key, value);
                }
            });
            assertThatThrownBy(() -> ConnectorRegistry.load(only)).as(provider)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(provider);
        }
    }

    @Test
    void shouldApplyTheSameEnablingRuleToClassifiers() {
        Map<String, String> config = unresolvableCredentials();
        config.put("connectors.smtp.enabled", "false");
        config.keySet().removeIf(key -> key.startsWith("connectors.x."));

        assertThat(ConnectorRegistry.classifiers(config)).containsOnlyKeys("webhook", "cli");
    }

    @Test
    void shouldNameTheProviderWhenAClassifierSettingIsBad() {
        Map<String, String> config = unresolvableCredentials();
        config.put("connectors.webhook.operations", "not a/valid op");

        assertThatThrownBy(() -> ConnectorRegistry.classifiers(config))
                .hasMessageContaining("webhook").hasMessageContaining("operation");
    }

    @Test
    void shouldRefuseAClassifierThatReadsACredential() throws IOException {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(ConnectorFactory.class.getName()),
                SecretReadingFactory.class.getName() + "\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                ConnectorRegistryTest.class.getClassLoader())) {
            Map<String, String> config = Map.of("connectors.greedy.credential", "env:ANYTHING");

            assertThatThrownBy(() -> ConnectorRegistry.classifiers(config, loader))
                    .hasMessageContaining("greedy").hasRootCauseInstanceOf(CredentialsUnavailableException.class);
        }
    }

    /** A third-party factory without a classifier of its own whose connector reads a credential when built. */
    public static final class SecretReadingFactory implements ConnectorFactory {
        @Override
        public String provider() {
            return "greedy";
        }

        @Override
        public Connector create(ConnectorContext context) {
            context.secret(context.requiredSetting("credential"));
            throw new AssertionError("a classifier context handed out a secret");
        }
    }
}
