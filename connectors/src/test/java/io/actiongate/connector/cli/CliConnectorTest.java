package io.actiongate.connector.cli;

import io.actiongate.connector.spi.Attachment;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.DispatchResult.Status;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupResult.Verdict;
import io.actiongate.connector.testing.LogCapture;
import io.actiongate.connector.testing.Requests;
import io.actiongate.connector.testing.TestContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.actiongate.connector.cli.CliClassifierTest.input;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CliConnectorTest {

    static final String GH_TOKEN = "ghs-stand-in-secret-value";

    @TempDir
    Path dir;

    private StandInTools tools;

    @BeforeEach
    void writeStandIns() {
        tools = new StandInTools(dir);
    }

    private CliConnector connector(Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(tools.settings());
        settings.put("gh.secret-env.GH_TOKEN", "file:/run/secrets/gh-token");
        settings.putAll(extra);
        return (CliConnector) new CliConnectorFactory().create(TestContext.of(settings,
                Map.of("file:/run/secrets/gh-token", GH_TOKEN)));
    }

    private CliConnector connector() {
        return connector(Map.of());
    }

    private static DispatchRequest run(String commandLine, String key) {
        String tool = commandLine.split(" ")[0];
        return Requests.dispatch("cli", tool, input(commandLine), key);
    }

    @Test
    void shouldRunAnApprovedVectorOnceFromTheConfiguredBinaryWithoutAShell() {
        String json = "{\"argv\":[\"kubectl\",\"-n\",\"prod\",\"delete\",\"pod\",\"$(touch pwned); echo hi\"]}";

        DispatchResult result = connector().dispatch(Requests.dispatch("cli", "kubectl", json, "key-1"));

        assertThat(result.status()).isEqualTo(Status.SUCCEEDED);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.httpStatus()).isZero();
        assertThat(result.providerReceiptId()).isNull();
        assertThat(tools.calls()).containsExactly(List.of("-n", "prod", "delete", "pod", "$(touch pwned); echo hi"));
        assertThat(dir.resolve("pwned")).doesNotExist();
        assertThat(dir.resolve("applied-key-1")).exists();
    }

    @Test
    void shouldGiveTheCommandOnlyTheConfiguredEnvironment() throws Exception {
        connector(Map.of("env-allow", "PATH", "gh.env.GH_HOST", "github.example.com"))
                .dispatch(run("gh pr merge 12 --squash", "key-2"));

        Map<String, String> env = tools.lastEnvironment();
        assertThat(env).containsEntry("GH_TOKEN", GH_TOKEN)
                .containsEntry("GH_HOST", "github.example.com")
                .containsEntry("STANDIN_DIR", dir.toString())
                .containsEntry("ACTIONGATE_IDEMPOTENCY_KEY", "key-2")
                .containsEntry("ACTIONGATE_ACTION", "T-1/C-1")
                .containsEntry("PATH", System.getenv("PATH"));
        // nothing of the executor's own environment that was not allow-listed; the shell itself may add PWD, SHLVL, _
        Set<String> names = new java.util.HashSet<>(env.keySet());
        names.removeAll(Set.of("PWD", "OLDPWD", "SHLVL", "_"));
        assertThat(names).containsExactlyInAnyOrder("GH_TOKEN", "GH_HOST", "STANDIN_DIR", "ACTIONGATE_IDEMPOTENCY_KEY",
                "ACTIONGATE_ACTION", "PATH");
        System.getenv().keySet().stream().filter(name -> !Set.of("PATH", "PWD", "OLDPWD", "SHLVL", "_").contains(name))
                .forEach(name -> assertThat(env).as("executor variable %s", name).doesNotContainKey(name));
        assertThat(Path.of(env.get("PWD")).toRealPath()).isEqualTo(dir.toRealPath());
    }

    @Test
    void shouldReportANonZeroExitAsFailedWithTheExitCodeAndOnlyARedactedExcerpt() {
        try (LogCapture logs = new LogCapture()) {
            DispatchResult result = connector().dispatch(run("gh pr close fail", "key-3"));

            assertThat(result.status()).isEqualTo(Status.FAILED);
            assertThat(result.dispatched()).isTrue();
            assertThat(result.httpStatus()).isEqualTo(3);
            assertThat(result.errorCode()).isEqualTo(ErrorCodes.COMMAND_FAILED);
            assertThat(result.errorDetail()).startsWith("exit code 3").contains("refused")
                    .doesNotContain(StandInTools.LEAKED_TOKEN).doesNotContain(GH_TOKEN);
            assertThat(result.errorDetail().length()).isLessThanOrEqualTo(140);
            assertThat(logs.lines()).isNotEmpty().noneMatch(line -> line.contains(StandInTools.LEAKED_TOKEN)
                    || line.contains(GH_TOKEN) || line.contains("refused"));
        }
    }

    @Test
    void shouldNeverCopySuccessfulOutputAnywhere() {
        try (LogCapture logs = new LogCapture()) {
            DispatchResult result = connector().dispatch(run("kubectl get pods", "key-4"));

            assertThat(result.status()).isEqualTo(Status.SUCCEEDED);
            assertThat(result.toString()).doesNotContain(StandInTools.LEAKED_TOKEN);
            assertThat(logs.lines()).noneMatch(line -> line.contains(StandInTools.LEAKED_TOKEN));
        }
    }

    @Test
    void shouldNotDispatchWhenTheBinaryIsMissingNotExecutableOrNotConfigured() {
        List<CliConnector> broken = List.of(
                connector(Map.of("kubectl.path", dir.resolve("no-such-kubectl").toString())),
                connector(Map.of("kubectl.path", tools.path("not-executable").toString())),
                connector(Map.of("kubectl.path", dir.toString())),
                connector(Map.of("working-dir", dir.resolve("gone").toString())));
        Map<String, String> noPath = new HashMap<>(tools.settings());
        noPath.remove("kubectl.path");
        CliConnector unconfigured = (CliConnector) new CliConnectorFactory().create(TestContext.of(noPath, Map.of()));

        for (CliConnector connector : List.of(broken.get(0), broken.get(1), broken.get(2), broken.get(3),
                unconfigured)) {
            DispatchResult result = connector.dispatch(run("kubectl delete pod web-1", "key-5"));
            assertThat(result.status()).isEqualTo(Status.NOT_DISPATCHED);
            assertThat(result.dispatched()).isFalse();
            assertThat(result.errorCode()).isEqualTo(ErrorCodes.EXECUTABLE_UNAVAILABLE);
        }
        assertThat(tools.calls()).isEmpty();
    }

    @Test
    void shouldNotDispatchWhenTheBinaryCannotBeStarted() throws Exception {
        Path badInterpreter = dir.resolve("bad-interpreter");
        Files.writeString(badInterpreter, "#!/nonexistent/interpreter\nexit 0\n");
        Files.setPosixFilePermissions(badInterpreter, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));

        DispatchResult result = connector(Map.of("kubectl.path", badInterpreter.toString()))
                .dispatch(run("kubectl delete pod web-1", "key-6"));

        assertThat(result.status()).isEqualTo(Status.NOT_DISPATCHED);
        assertThat(result.dispatched()).isFalse();
    }

    @Test
    void shouldKillACommandStillRunningAtTheTimeoutAndReportUnknown() {
        Instant start = Instant.now();

        DispatchResult result = connector(Map.of("timeout-ms", "700")).dispatch(run("kubectl delete pod slow", "k7"));

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.COMMAND_TIMEOUT);
        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(10));
        assertThat(gone(tools.pid("child.pid"))).as("the stand-in").isTrue();
        assertThat(gone(tools.pid("grandchild.pid"))).as("its background sleep").isTrue();
    }

    /** Exited, or killed and left a zombie (nothing may reap orphans in a container); waits for the signal to land. */
    private static boolean gone(long pid) {
        for (int i = 0; i < 30; i++) {
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (!alive || zombie(pid)) {
                return true;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    private static boolean zombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.substring(stat.lastIndexOf(')') + 1).strip().startsWith("Z");
        } catch (java.io.IOException e) {
            return true;
        }
    }

    @Test
    void shouldReportACommandKilledAfterItStartedAsUnknown() {
        DispatchResult result = connector().dispatch(run("kubectl delete pod killed", "key-8"));

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.COMMAND_KILLED);
        assertThat(result.errorDetail()).contains("signal 9");
    }

    @Test
    void shouldBoundTheOutputItReadsWithoutBlockingTheCommand() {
        DispatchResult result = connector(Map.of("max-output-bytes", "1024")).dispatch(run("kubectl get pod loud", "k9"));

        assertThat(result.status()).isEqualTo(Status.SUCCEEDED);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "kubectl config view",
            "kubectl get pods -w",
            "kubectl get secrets",
            "kubectl frobnicate pods",
            "kubectl get pods --no-such-flag",
            "gh auth token"})
    void shouldRefuseAtDispatchWhatTheClassifierRefusesAndRunNothing(String commandLine) {
        DispatchResult result = connector().dispatch(run(commandLine, "key-10"));

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.dispatched()).isFalse();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.OPERATION_REFUSED);
        assertThat(tools.calls()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"argv\":[\"kubectl\",\"get\",\"pods\\u0007\"]}",
            "{\"argv\":[\"kubectl\",\"get\",\"pods\\r\"]}",
            "{\"argv\":\"kubectl get pods\"}",
            "{\"argv\":[\"/bin/sh\",\"-c\",\"id\"]}",
            "{\"argv\":[\"kubectl\",\"get\",\"pods\"],\"env\":{\"KUBECONFIG\":\"/tmp/evil\"}}",
            "not json"})
    void shouldRefuseMalformedInputAtDispatchAndRunNothing(String json) {
        DispatchResult result = connector().dispatch(Requests.dispatch("cli", "kubectl", json, "key-11"));

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.dispatched()).isFalse();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.SCHEMA_INVALID);
        assertThat(tools.calls()).isEmpty();
    }

    @Test
    void shouldRefuseOverLongVectorsAndBadKeysAndAttachmentsAndRunNothing() {
        String longVector = input("kubectl get pods" + " x".repeat(CliClassifier.MAX_ARGS));
        DispatchRequest attached = new DispatchRequest("T-1", "C-1", 1, "k", "acme", "cli", "kubectl", "kubectl",
                input("kubectl delete pod web-1"), List.of(new Attachment("o", "sha", 1, "text/plain")),
                Instant.parse("2030-01-01T00:00:00Z"));

        assertThat(List.of(
                connector().dispatch(Requests.dispatch("cli", "kubectl", longVector, "key-12")),
                connector().dispatch(run("kubectl delete pod web-1", "bad\nkey")),
                connector().dispatch(run("kubectl delete pod web-1", "")),
                connector().dispatch(attached)))
                .allSatisfy(result -> {
                    assertThat(result.status()).isEqualTo(Status.FAILED);
                    assertThat(result.dispatched()).isFalse();
                    assertThat(result.errorCode()).isEqualTo(ErrorCodes.SCHEMA_INVALID);
                });
        assertThat(tools.calls()).isEmpty();
    }

    @Test
    void shouldConfirmAnEffectOnlyThroughTheConfiguredStatusCommand() {
        CliConnector connector = connector();
        connector.dispatch(run("kubectl delete pod web-1", "key-13"));

        assertThat(connector.lookup(Requests.lookup("cli", "kubectl", "key-13", input("kubectl delete pod web-1")))
                .verdict()).isEqualTo(Verdict.EFFECT_CONFIRMED);
        assertThat(connector.lookup(Requests.lookup("cli", "kubectl", "never-dispatched", null)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
    }

    @Test
    void shouldStayStillUnknownWithoutAStatusCommand() {
        Map<String, String> settings = new HashMap<>(tools.settings());
        settings.remove("kubectl.status-path");
        CliConnector connector = (CliConnector) new CliConnectorFactory().create(TestContext.of(settings, Map.of()));
        connector.dispatch(run("kubectl delete pod web-1", "key-14"));

        assertThat(connector.lookup(Requests.lookup("cli", "kubectl", "key-14", null)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
        assertThat(connector.lookup(Requests.lookup("cli", "kubectl", "other", null)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
    }

    @Test
    void shouldRefuseBadSettingsAtStartNamingThem() {
        CliConnectorFactory factory = new CliConnectorFactory();
        Map<String, Map<String, String>> bad = Map.of(
                "kubectl.path", Map.of("kubectl.path", "bin/kubectl"),
                "helm.path", Map.of("helm.path", "/usr/bin/helm"),
                "kubectl.colour", Map.of("kubectl.colour", "auto"),
                "kubectl.env.1BAD", Map.of("kubectl.env.1BAD", "x"),
                "kubectl.env.ACTIONGATE_IDEMPOTENCY_KEY", Map.of("kubectl.env.ACTIONGATE_IDEMPOTENCY_KEY", "x"),
                "working-dir", Map.of("working-dir", "/tmp/../etc"),
                "timeout-ms", Map.of("timeout-ms", "0"),
                "env-allow", Map.of("env-allow", "PATH,LD PRELOAD"));
        bad.forEach((setting, settings) -> {
            assertThatThrownBy(() -> factory.create(TestContext.of(settings, Map.of()))).as(setting)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(setting);
            assertThatThrownBy(() -> factory.classifier(TestContext.of(settings, Map.of()))).as(setting)
                    .isInstanceOf(IllegalArgumentException.class);
        });
    }
}
