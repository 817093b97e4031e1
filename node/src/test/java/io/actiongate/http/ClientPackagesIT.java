package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.DecisionType;
import io.actiongate.testing.KafkaBrokerExtension;

/**
 * The tool host packages under {@code clients/} against a real node (gate and executor on the embedded broker, the
 * webhook connector aimed at the sandbox provider), every request and answer passing through a proxy that checks it
 * against the committed OpenAPI document: the TypeScript package's tests and its examples (one per framework
 * adapter), then the Python package installed offline into a fresh virtual environment, its tests and its example.
 * Each example proposes, is approved by a signed decision, and ends with its settled receipt and exactly one effect at
 * the provider. The packages' own tests approve through a test hook (POST /decide signs a decision on the digest they
 * name; GET /effects counts the sandbox's effects for an idempotency key). Skipped, saying what is missing, without
 * node and npm (and {@code npm ci} run in clients/typescript, as .ci/run does) or without a Python with venv,
 * setuptools and wheel.
 */
@Tag("system")
class ClientPackagesIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    @TempDir
    static Path dir;

    static final String PREFIX = "client-packages-it.";
    static final String TASK = ProposalsNode.TASK;
    static final String HOST_TOKEN = "host-token-acme-0001";
    static final ObjectMapper JSON = new ObjectMapper();
    static final OpenApiContract CONTRACT = new OpenApiContract();
    static final Path CLIENTS = Path.of("..", "clients").toAbsolutePath().normalize();
    static final Path TYPESCRIPT = CLIENTS.resolve("typescript");
    static final Path PYTHON = CLIENTS.resolve("python");

    static ProposalsNode node;
    static HttpServer hook;
    static boolean typescriptBuilt;
    static Path venvPython;

    ContractProxy proxy;

    @BeforeAll
    static void startNode() throws Exception {
        Path hosts = Files.writeString(dir.resolve("hosts"), HOST_TOKEN + " user-1 " + ProposalsNode.ORG
                + " chat-default\n");
        node = ProposalsNode.start(KAFKA, PREFIX, dir, hosts, Map.of());
        hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hook.createContext("/decide", ClientPackagesIT::decideHook);
        hook.createContext("/effects", ClientPackagesIT::effectsHook);
        hook.start();
    }

    @AfterAll
    static void stopNode() {
        if (hook != null) {
            hook.stop(0);
        }
        if (node != null) {
            node.close();
        }
    }

    @BeforeEach
    void startProxy() throws IOException {
        proxy = new ContractProxy(CONTRACT, node.port());
    }

    @AfterEach
    void stopProxy() {
        proxy.close();
    }

    @Test
    void shouldPassTheTypeScriptPackagesTestsAgainstTheNode() throws Exception {
        buildTypeScript();
        Run run = run(List.of("npm", "test"), TYPESCRIPT, packageTestEnvironment(), line -> { });
        assertThat(run.exit).as(run.output()).isZero();
        assertThat(run.output()).contains("# fail 0").doesNotContain("SKIP no node");
        assertThat(proxy.violations()).isEmpty();
        assertThat(proxy.exchanges()).contains("POST /v1/proposals 200", "POST /v1/proposals 409",
                "POST /v1/proposals 400", "POST /v1/proposals 401", "POST /v1/proposals 403");
    }

    @Test
    void shouldRunTheTypeScriptExampleToOneEffectAfterTheApproval() throws Exception {
        runTypeScriptExample("propose-email", true);
    }

    @Test
    void shouldRunTheOpenAiAgentsExampleToOneEffectAfterTheApproval() throws Exception {
        runTypeScriptExample("openai-agents", false);
    }

    @Test
    void shouldRunTheAiSdkExampleToOneEffectAfterTheApproval() throws Exception {
        runTypeScriptExample("ai-sdk", false);
    }

    @Test
    void shouldRunTheLangGraphExampleToOneEffectAfterTheApproval() throws Exception {
        runTypeScriptExample("langgraph", false);
    }

    private void runTypeScriptExample(String example, boolean showsConflict) throws Exception {
        buildTypeScript();
        runExample(List.of("node", "build/examples/" + example + ".js"), TYPESCRIPT, "ts-" + example, showsConflict);
    }

    @Test
    void shouldInstallThePythonPackageOfflineAndPassItsTestsAgainstTheNode() throws Exception {
        Path python = pythonPackage();
        Run run = run(List.of(python.toString(), "-m", "unittest", "discover", "-s", "tests", "-t", "."), PYTHON,
                packageTestEnvironment(), line -> { });
        assertThat(run.exit).as(run.output()).isZero();
        assertThat(run.lines).as(run.output()).contains("OK").noneMatch(l -> l.contains("skipped"));
        assertThat(proxy.violations()).isEmpty();
        assertThat(proxy.exchanges()).contains("POST /v1/proposals 200", "POST /v1/proposals 409",
                "POST /v1/proposals 400", "POST /v1/proposals 401", "POST /v1/proposals 403");
    }

    @Test
    void shouldRunThePythonExampleToOneEffectAfterTheApproval() throws Exception {
        Path python = pythonPackage();
        runExample(List.of(python.toString(), "-u", "examples/propose_email.py"), PYTHON, "py-propose-email", true);
    }

    /**
     * Runs an example, approves its action when it prints {@code state WAITING_APPROVAL ... digest D}, and checks that
     * it ends SUCCEEDED with one effect (and, for the plain clients, that other data under its ids was a conflict).
     */
    private void runExample(List<String> command, Path directory, String prefix, boolean showsConflict)
            throws Exception {
        String call = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        int effectsBefore = node.sandbox.effectCount();
        Map<String, String> env = new HashMap<>(nodeEnvironment());
        env.put("TASK_ID", TASK);
        env.put("TOOL_CALL_ID", call);
        env.put("PROVIDER", "webhook");
        env.put("TOOL_SCHEMA_HASH", ProposalsNode.SCHEMA);
        Run run = run(command, directory, env, line -> {
            String[] words = line.split(" ");
            if (words.length > 1 && words[0].equals("state") && words[1].equals("WAITING_APPROVAL")) {
                io.actiongate.key.ActionKey key = io.actiongate.key.ActionKey.parse(
                        words[3].substring(words[3].indexOf("/review/") + "/review/".length()));
                node.decide(key.taskId(), key.toolCallId(), words[words.length - 1], DecisionType.APPROVE);
            }
        });
        assertThat(run.exit).as(run.output()).isZero();
        assertThat(run.lines).as(run.output())
                .anySatisfy(l -> assertThat(l).startsWith("state WAITING_APPROVAL review " + ProposalsNode.REVIEW
                        + TASK + "/"))
                .anySatisfy(l -> assertThat(l).startsWith("final SUCCEEDED"));
        if (showsConflict) {
            assertThat(run.lines).anySatisfy(l -> assertThat(l).startsWith("conflict existing sha256:"));
            assertThat(proxy.exchanges()).contains("POST /v1/proposals 409");
        }
        assertThat(proxy.violations()).isEmpty();
        assertThat(proxy.exchanges()).contains("POST /v1/proposals 200");
        assertThat(node.sandbox.effectCount()).as("one email; a conflicting offer never acts")
                .isEqualTo(effectsBefore + 1);
    }

    // ---- what the packages need ----

    private static synchronized void buildTypeScript() throws Exception {
        Assumptions.assumeTrue(onPath("node") && onPath("npm"), "node or npm is not on the PATH: TypeScript package "
                + "skipped (.ci/run installs them)");
        Assumptions.assumeTrue(Files.isDirectory(TYPESCRIPT.resolve("node_modules")), "clients/typescript has no "
                + "node_modules: run npm ci there (.ci/run does); TypeScript package skipped");
        if (!typescriptBuilt) {
            Run build = run(List.of("npm", "run", "--silent", "build"), TYPESCRIPT, Map.of(), line -> { });
            assertThat(build.exit).as(build.output()).isZero();
            Run tests = run(List.of("npm", "run", "--silent", "build:test"), TYPESCRIPT, Map.of(), line -> { });
            assertThat(tests.exit).as(tests.output()).isZero();
            typescriptBuilt = true;
        }
    }

    /** A fresh virtual environment with the package installed from the repository, offline (no index). */
    private static synchronized Path pythonPackage() throws Exception {
        if (venvPython == null) {
            Optional<String> python = List.of("/usr/bin/python3", "python3").stream().filter(p -> {
                try {
                    return run(List.of(p, "-c", "import venv, setuptools, wheel"), PYTHON, Map.of(), l -> { }).exit
                            == 0;
                } catch (Exception e) {
                    return false;
                }
            }).findFirst();
            Assumptions.assumeTrue(python.isPresent(), "no python3 with venv, setuptools and wheel (Debian: "
                    + "python3-venv python3-setuptools python3-wheel; .ci/run installs them): Python package skipped");
            Path venv = dir.resolve("venv");
            Run create = run(List.of(python.get(), "-m", "venv", "--system-site-packages", venv.toString()), PYTHON,
                    Map.of(), l -> { });
            assertThat(create.exit).as(create.output()).isZero();
            Path pip = venv.resolve("bin").resolve("pip");
            Run install = run(List.of(pip.toString(), "install", "--quiet", "--no-build-isolation", "--no-index",
                    PYTHON.toString()), dir, Map.of(), l -> { });
            assertThat(install.exit).as(install.output()).isZero();
            venvPython = venv.resolve("bin").resolve("python");
        }
        return venvPython;
    }

    private Map<String, String> nodeEnvironment() {
        return Map.of("ACTIONGATE_URL", "http://127.0.0.1:" + proxy.port(), "ACTIONGATE_TOKEN", HOST_TOKEN,
                "OPENAI_AGENTS_DISABLE_TRACING", "1");
    }

    private Map<String, String> packageTestEnvironment() {
        Map<String, String> env = new HashMap<>(nodeEnvironment());
        env.put("ACTIONGATE_TEST_HOOK", "http://127.0.0.1:" + hook.getAddress().getPort());
        env.put("ACTIONGATE_TEST_TASK", TASK);
        env.put("ACTIONGATE_TEST_PROVIDER", "webhook");
        env.put("ACTIONGATE_TEST_SCHEMA", ProposalsNode.SCHEMA);
        return env;
    }

    record Run(int exit, List<String> lines) {
        String output() {
            return String.join("\n", lines);
        }
    }

    /** Runs a program to its end (at most five minutes), handing each line it prints to {@code onLine}. */
    private static Run run(List<String> command, Path directory, Map<String, String> env, Consumer<String> onLine)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
        builder.environment().remove("PYTHONPATH");
        builder.environment().putAll(env);
        Process process = builder.start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                lines.add(line);
                onLine.accept(line);
            }
        } finally {
            if (!process.waitFor(300, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        return new Run(process.exitValue(), lines);
    }

    // ---- the test hook: a reviewer's signed decision, the provider's effects ----

    private static void decideHook(HttpExchange exchange) throws IOException {
        try (exchange) {
            JsonNode body = JSON.readTree(exchange.getRequestBody());
            node.decide(body.path("task_id").asText(), body.path("tool_call_id").asText(),
                    body.path("action_digest").asText(), DecisionType.valueOf(body.path("type").asText()));
            exchange.sendResponseHeaders(204, -1);
        }
    }

    private static void effectsHook(HttpExchange exchange) throws IOException {
        try (exchange) {
            String query = exchange.getRequestURI().getRawQuery();
            String key = URLDecoder.decode(query.substring(query.indexOf("key=") + 4), StandardCharsets.UTF_8);
            byte[] answer = JSON.writeValueAsBytes(Map.of("effects", node.sandbox.effects(key),
                    "applied", node.sandbox.appliedRequests(key)));
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        }
    }

    private static boolean onPath(String program) {
        for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(entry, program))) {
                return true;
            }
        }
        return false;
    }
}
