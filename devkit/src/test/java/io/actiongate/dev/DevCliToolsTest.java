package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.cli.commands.PolicyJson;
import io.actiongate.connector.spi.Classification.Kind;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;

class DevCliToolsTest {

    @TempDir
    Path dir;

    private static String argv(String commandLine) {
        StringBuilder json = new StringBuilder("{\"argv\":[");
        String[] args = commandLine.split(" ");
        for (int i = 0; i < args.length; i++) {
            json.append(i == 0 ? "" : ",").append('"').append(args[i]).append('"');
        }
        return json.append("]}").toString();
    }

    private static DispatchRequest request(String commandLine, String key) {
        return new DispatchRequest("T-1", "call-" + key, 1, key, DemoPolicy.ORG, "cli", "kubectl", "kubectl",
                argv(commandLine), List.of(), Instant.now().plusSeconds(60));
    }

    @Test
    void shouldClassifyTheDemoCommandsAsTheReadmeShows() throws Exception {
        OperationClassifier cli = ConnectorRegistry.classifiers(DevCliTools.install(dir)).get("cli");

        assertThat(cli.classifiesPerInput()).isTrue();
        assertThat(cli.classify("kubectl", argv("kubectl -n prod get pods")).kind()).isEqualTo(Kind.READ);
        assertThat(cli.classify("kubectl", argv("kubectl -n prod delete pod web-1")).kind()).isEqualTo(Kind.EFFECT);
        assertThat(cli.classify("kubectl", argv("kubectl config view")).kind())
                .isEqualTo(Kind.REJECTED_AUTH_OR_CONFIG);
        assertThat(cli.classify("kubectl", argv("kubectl get pods -w")).kind()).isEqualTo(Kind.REJECTED_UNBOUNDED);
    }

    @Test
    void shouldRunTheStandInsAndConfirmOnlyTheirEffects() throws Exception {
        try (ConnectorRegistry registry = ConnectorRegistry.load(DevCliTools.install(dir))) {
            Connector cli = registry.find("cli").orElseThrow();

            DispatchResult read = cli.dispatch(request("kubectl -n prod get pods", "read-1"));
            DispatchResult delete = cli.dispatch(request("kubectl -n prod delete pod web-1", "delete-1"));

            assertThat(read.status()).isEqualTo(DispatchResult.Status.SUCCEEDED);
            assertThat(delete.status()).isEqualTo(DispatchResult.Status.SUCCEEDED);
            assertThat(Files.readAllLines(dir.resolve("effects.log"))).singleElement().asString()
                    .contains("\tdelete-1\t").contains("kubectl delete");
            assertThat(cli.lookup(new LookupRequest("T-1", "call-delete-1", 1, "delete-1", DemoPolicy.ORG, "cli",
                    "kubectl", null)).verdict()).isEqualTo(LookupResult.Verdict.EFFECT_CONFIRMED);
            assertThat(cli.lookup(new LookupRequest("T-1", "call-read-1", 1, "read-1", DemoPolicy.ORG, "cli",
                    "kubectl", null)).verdict()).isEqualTo(LookupResult.Verdict.STILL_UNKNOWN);
            assertThat(cli.lookup(new LookupRequest("T-1", "call-x", 1, "delete", DemoPolicy.ORG, "cli",
                    "kubectl", null)).verdict()).isEqualTo(LookupResult.Verdict.STILL_UNKNOWN);
        }
    }

    @Test
    void shouldGrantKubectlWithoutApprovalInTheDemoPolicy() {
        Map<String, PolicyJson.Entry> byKey = new java.util.HashMap<>();
        DemoPolicy.entries().forEach(entry -> byKey.put(entry.key().toString(), entry));

        assertThat(byKey).containsKeys("tool:cli:kubectl", "integration:demo:cli");
        assertThat(byKey.get("tool:cli:kubectl").record().getBody().toString()).contains("\"approval\": \"NONE\"");
        assertThat(byKey.get("grant:demo:assistant").record().getBody().toString()).contains("kubectl");
    }
}
