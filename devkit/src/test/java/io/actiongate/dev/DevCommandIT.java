package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.cli.ExitCodes;
import io.actiongate.key.ActionKey;
import io.actiongate.testing.ApprovalPageClient;
import io.actiongate.topics.Topics;
import picocli.CommandLine;

/**
 * {@code actiongate dev} in process: the broker, the topics, every role and the summary it prints. System tier: every
 * role of dev started as the command starts them.
 */
@Tag("system")
class DevCommandIT {

    @Test
    void shouldStartBrokerCreateTopicsPrintTheAddressAndStopCleanly(@TempDir Path dir) throws Exception {
        // a free HTTP port too: the default 8080 may be taken on a shared machine
        Path config = Files.writeString(dir.resolve("actiongate.properties"), "http.port=0\n");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true));
        DevCommand dev = cl.getSubcommands().get("dev").getCommand();

        // every log event until the summary is printed: a newcomer must not read warnings as failures
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cl.execute("dev", "--port", "0",
                "--config", config.toString()));
        DevEnvironment env = dev.awaitRunning();
        List<ILoggingEvent> beforeSummary;
        try {
            assertThat(env).as("dev started; stderr: %s", err).isNotNull();
            // once dev says it runs, its API answers (no 503 while the gate's store opens)
            Path secretsDir = env.broker().dataDir().resolve("secrets");
            String apiToken = Files.readString(secretsDir.resolve("http-token")).strip();
            Matcher gateUrl = Pattern.compile("gate HTTP: (http://127\\.0\\.0\\.1:\\d+)/").matcher(out.toString());
            assertThat(gateUrl.find()).as("gate URL in:%n%s", out).isTrue();
            HttpClient api = HttpClient.newHttpClient();
            HttpResponse<String> demoAction = api.send(HttpRequest.newBuilder(URI.create(gateUrl.group(1)
                    + "/v1/actions/T-1/demo-email-1")).header("Authorization", "Bearer " + apiToken).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(demoAction.statusCode()).as(demoAction.body()).isEqualTo(200);
            assertThat(demoAction.body()).contains("WAITING_APPROVAL");
            assertThat(api.send(HttpRequest.newBuilder(URI.create(gateUrl.group(1) + "/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            // the printed tool host token is the one in force; every secret owner-only
            String hostTokens = Files.readString(secretsDir.resolve("host-tokens"));
            assertThat(out.toString()).contains("tool host token:  " + hostTokens.split(" ")[0] + " ");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secretsDir)))
                    .isEqualTo("rwx------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(
                    env.broker().dataDir().resolve("keys").resolve("approver")))).isEqualTo("rwx------");
            try (var files = Files.list(secretsDir)) {
                assertThat(files.filter(Files::isRegularFile).toList()).isNotEmpty().allSatisfy(f ->
                        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).as(f.toString())
                                .isEqualTo("rw-------"));
            }
            assertThat(out.toString()).contains("Kafka bootstrap servers: " + env.bootstrapServers(),
                    "actiongate.proposals", "actiongate.dead-letters", "Next steps:", "Ctrl-C");
            beforeSummary = List.copyOf(logs.list);
            assertThat(beforeSummary).as("dev logged something before its summary").isNotEmpty();
            assertThat(beforeSummary.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                    .map(e -> e.getLevel() + " " + e.getLoggerName() + " - " + e.getFormattedMessage()))
                    .as("warnings before the summary").isEmpty();
            // the HTTP API token dev generated, printed with its file
            Path tokenFile = env.broker().dataDir().resolve("secrets").resolve("http-token");
            assertThat(out.toString()).contains("gate API token: " + Files.readString(tokenFile).strip(),
                    tokenFile.toString());
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    env.bootstrapServers()))) {
                Set<String> names = admin.listTopics().names().get(10, TimeUnit.SECONDS);
                assertThat(names).containsAll(Topics.names(Topics.DEFAULT_PREFIX));
            }
            // the object store for attachments runs too, and the storage config dev wrote reaches it
            String printed = out.toString();
            assertThat(printed).contains("object store (attachments): http://127.0.0.1:");
            int at = printed.indexOf("--storage-config ") + "--storage-config ".length();
            String storageConfig = printed.substring(at, printed.indexOf('\n', at)).strip();
            CliRun init = CliRun.of("storage", "init", "--storage-config", storageConfig,
                    "--allow-missing-lifecycle");
            assertThat(init.exitCode()).as(init.err()).isZero();
            assertThat(init.out()).contains("bucket:    actiongate-attachments (exists)");

            // the approval page answers at the printed URL and sends a visitor to sign in at the printed provider
            Matcher page = Pattern.compile("approval page: (http://localhost:\\d+)/queue").matcher(printed);
            assertThat(page.find()).as("approval page URL in:%n%s", printed).isTrue();
            Matcher login = Pattern.compile("demo login: username alice@demo at the in-process identity provider "
                    + "(http://\\S+) ").matcher(printed);
            assertThat(login.find()).as("demo login in:%n%s", printed).isTrue();
            String approval = page.group(1);
            String issuer = login.group(1);
            assertThat(printed).contains(approval + "/review/T-1/demo-email-1");
            HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
            HttpResponse<String> queue = http.send(HttpRequest.newBuilder(URI.create(approval + "/queue")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(queue.statusCode()).isEqualTo(303);
            assertThat(queue.headers().firstValue("Location")).contains("/login?return=%2Fqueue");
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(approval + "/health/ready"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(200);
            HttpResponse<String> discovery = http.send(HttpRequest.newBuilder(
                    URI.create(issuer + "/.well-known/openid-configuration")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(discovery.statusCode()).isEqualTo(200);
            JsonNode metadata = new ObjectMapper().readTree(discovery.body());
            assertThat(metadata.path("issuer").asText()).isEqualTo(issuer);
            HttpResponse<String> signIn = http.send(HttpRequest.newBuilder(URI.create(approval
                    + "/login?return=/queue")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(signIn.statusCode()).isEqualTo(303);
            assertThat(signIn.headers().firstValue("Location").orElseThrow())
                    .startsWith(metadata.path("authorization_endpoint").asText() + "?")
                    .contains("code_challenge_method=S256", "client_id=actiongate-approver");

            // reviewers are told: the notifier posted the demo email's review page to the sandbox chat webhook, once
            assertThat(printed).contains("reviewers are told: each waiting action goes to the sandbox chat webhook");
            String told = "Approval needed: send_email (demo) -> " + approval + "/review/T-1/demo-email-1";
            long toldBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (chatLines(logs).stream().noneMatch(l -> l.endsWith(told)) && System.nanoTime() - toldBy < 0) {
                Thread.sleep(200);
            }
            assertThat(chatLines(logs)).containsExactly("sandbox chat: message 1: " + told);

            // the newcomer's path: sign in with the demo login, add a one-time code app, approve the demo email on
            // its review page, and see it land in the sandbox mailbox once
            ListAppender<ILoggingEvent> mailbox = new ListAppender<>();
            mailbox.start();
            Logger mailboxLog = (Logger) LoggerFactory.getLogger("io.actiongate.dev.SandboxMailbox");
            mailboxLog.addAppender(mailbox);
            try {
                URI approvalPage = URI.create(approval);
                ApprovalPageClient person = new ApprovalPageClient(approvalPage);
                assertThat(person.signInAtLoginForm(approvalPage, "alice@demo", "")).isEqualTo("alice@demo");
                person.enrolTotp(approvalPage);
                ApprovalPageClient.Decided decided = person.decide(approvalPage,
                        ActionKey.format("T-1", "demo-email-1"), "APPROVE", java.time.Duration.ofSeconds(60));
                assertThat(decided.recipient()).isEqualTo("team@example.com");
                assertThat(decided.subject()).isEqualTo(DemoScenario.SUMMARY_SUBJECT);
                assertThat(decided.body()).isEqualTo(DemoScenario.SUMMARY_BODY);
                assertThat(decided.answer()).isEqualTo("Decision published");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (mailbox.list.isEmpty() && System.nanoTime() - deadline < 0) {
                    Thread.sleep(200);
                }
                Thread.sleep(2_000); // a second send would show within the watcher's one-second period
                assertThat(mailbox.list).extracting(ILoggingEvent::getFormattedMessage)
                        .containsExactly("emails in the sandbox mailbox (team@example.com): 1");
            } finally {
                mailboxLog.detachAppender(mailbox);
            }

            mcpSession(printed, env.broker().dataDir().resolve("secrets").resolve("mcp-host-token"));
        } finally {
            root.detachAppender(logs);
            dev.stop(new PrintWriter(out, true));
        }
        assertThat(exit.get(30, TimeUnit.SECONDS)).isEqualTo(ExitCodes.OK);
        assertThat(out.toString()).contains("Stopped.");
        assertThat(env.broker().dataDir()).doesNotExist();
    }

    /** What the sandbox chat webhook logged: one line per message the notifier posted. */
    private static List<String> chatLines(ListAppender<ILoggingEvent> logs) {
        synchronized (logs) {
            return List.copyOf(logs.list).stream().filter(e -> e.getLoggerName().endsWith("SandboxChatWebhook"))
                    .map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    /**
     * The MCP gateway dev printed: the sandbox tools listed, the trusted read answered, the send proposed, approved
     * and applied on the sandbox MCP server itself, once (a redelivered call after success runs nothing).
     */
    @SuppressWarnings("unchecked")
    private static void mcpSession(String printed, Path tokenFile) throws IOException {
        ListAppender<ILoggingEvent> applied = new ListAppender<>();
        applied.start();
        Logger sandboxLog = (Logger) LoggerFactory.getLogger("io.actiongate.sandbox.SandboxMcpServer");
        sandboxLog.addAppender(applied);
        try {
            mcpSession(printed, tokenFile, applied);
        } finally {
            sandboxLog.detachAppender(applied);
        }
    }

    @SuppressWarnings("unchecked")
    private static void mcpSession(String printed, Path tokenFile, ListAppender<ILoggingEvent> applied)
            throws IOException {
        int at = printed.indexOf("MCP gateway: ") + "MCP gateway: ".length();
        String url = printed.substring(at, printed.indexOf(' ', at)).strip();
        assertThat(url).startsWith("http://127.0.0.1:").endsWith("/mcp");
        String token = Files.readString(tokenFile).strip();
        io.modelcontextprotocol.client.McpSyncClient mcp = io.modelcontextprotocol.client.McpClient.sync(
                io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport
                        .builder(url.substring(0, url.length() - "/mcp".length()))
                        .addHttpRequestCustomizer((b, method, uri, body, ctx) -> b
                                .header("Authorization", "Bearer " + token).header("X-ActionGate-Task-Id", "T-1"))
                        .build()).requestTimeout(java.time.Duration.ofSeconds(60)).build();
        try {
            mcp.initialize();
            assertThat(mcp.listTools().tools()).extracting(io.modelcontextprotocol.spec.McpSchema.Tool::name)
                    .containsExactlyInAnyOrder("notes_lookup", "notes_post", "notes_status");
            io.modelcontextprotocol.spec.McpSchema.CallToolResult read = mcp.callTool(
                    io.modelcontextprotocol.spec.McpSchema.CallToolRequest.builder("notes_lookup")
                            .arguments(Map.of("q", "launch")).build());
            assertThat(read.meta()).containsEntry("actiongate/data", true);
            io.modelcontextprotocol.spec.McpSchema.CallToolResult send = mcp.callTool(
                    io.modelcontextprotocol.spec.McpSchema.CallToolRequest.builder("notes_post")
                            .arguments(Map.of("channel", "project-launch", "text", "Launch moved to Friday."))
                            .meta(Map.of("tool_call_id", "dev-mcp-1")).build());
            assertThat((Map<String, Object>) send.structuredContent()).as("%s", send.content())
                    .containsEntry("state", "WAITING_APPROVAL").containsEntry("action_key", "T-1/dev-mcp-1");

            // approve with the decide command dev printed, then the same call returns the receipt
            int from = printed.indexOf("approve an action: ./actiongate ") + "approve an action: ./actiongate ".length();
            String[] decide = printed.substring(from, printed.indexOf('\n', from)).strip().replace(" CALL ", " dev-mcp-1 ")
                    .split("\\s+");
            CliRun approve = CliRun.of(decide);
            assertThat(approve.exitCode()).as(approve.err()).isZero();
            io.modelcontextprotocol.spec.McpSchema.CallToolRequest again = io.modelcontextprotocol.spec.McpSchema
                    .CallToolRequest.builder("notes_post")
                    .arguments(Map.of("channel", "project-launch", "text", "Launch moved to Friday."))
                    .meta(Map.of("tool_call_id", "dev-mcp-1")).build();
            Map<String, Object> receipt = Map.of();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!"SUCCEEDED".equals(receipt.get("state")) && System.nanoTime() < deadline) {
                receipt = (Map<String, Object>) mcp.callTool(again).structuredContent();
                if (!"SUCCEEDED".equals(receipt.get("state"))) {
                    try {
                        Thread.sleep(500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
            }
            assertThat(receipt).containsEntry("state", "SUCCEEDED").containsEntry("attempts", 1)
                    .containsEntry("provider_receipt_id", "note-1");
            // the host redelivers the call after success: the same receipt, nothing runs again
            assertThat((Map<String, Object>) mcp.callTool(again).structuredContent())
                    .containsEntry("state", "SUCCEEDED").containsEntry("attempts", 1);
            assertThat(applied.list).extracting(ILoggingEvent::getFormattedMessage)
                    .containsExactly("sandbox MCP server: notes_post applied note-1 (1 effect(s) so far)");
        } finally {
            mcp.closeGracefully();
        }
    }

    @Test
    void shouldFailNamingThePortWhenItIsTaken() throws IOException {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));

            CliRun run = CliRun.of("dev", "--port", Integer.toString(taken.getLocalPort()));

            assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
            assertThat(run.err()).startsWith("error: port " + taken.getLocalPort()
                    + " on 127.0.0.1 is already in use");
        }
    }

    @Test
    void shouldStartComponentsInOrderAndCloseThemInReverse() throws Exception {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        List<DevComponent> components = List.of(recording("gate", events), recording("executor", events));

        try (DevEnvironment env = DevEnvironment.start(new DevEnvironment.Settings(0, null, Map.of()), components)) {
            assertThat(env.hints()).containsExactly("gate hint", "executor hint");
        }

        assertThat(events).containsExactly("start gate", "start executor", "stop executor", "stop gate");
    }

    @Test
    void shouldCloseStartedComponentsAndTheBrokerWhenOneFailsToStart() {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        DevComponent failing = new DevComponent() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public AutoCloseable start(DevContext context) {
                events.add("bootstrap " + context.bootstrapServers());
                throw new IllegalStateException("broken on purpose");
            }
        };

        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        try {
            DevEnvironment.start(new DevEnvironment.Settings(0, null, Map.of()),
                    List.of(recording("gate", events), failing)).close();
        } catch (Exception e) {
            failure.complete(e);
        }

        assertThat(failure.getNow(null)).hasMessage("broken on purpose");
        assertThat(events).hasSize(3);
        assertThat(events.get(0)).isEqualTo("start gate");
        assertThat(events.get(1)).startsWith("bootstrap 127.0.0.1:");
        assertThat(events.get(2)).isEqualTo("stop gate");
    }

    private static DevComponent recording(String name, List<String> events) {
        return new DevComponent() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public AutoCloseable start(DevContext context) {
                assertThat(context.topicPrefix()).isEqualTo("actiongate.");
                assertThat(context.config()).containsKey("state.dir");
                events.add("start " + name);
                context.hint(name + " hint");
                return () -> events.add("stop " + name);
            }
        };
    }
}
