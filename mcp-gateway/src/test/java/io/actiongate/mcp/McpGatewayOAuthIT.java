package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.TaskState;
import io.actiongate.client.GateFixture;
import io.actiongate.key.ActionKey;
import io.actiongate.runtime.Shutdown;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.RawHttp;
import io.actiongate.testing.KeyRecords;
import io.actiongate.testing.TestNames;
import io.actiongate.topics.Topics;

/**
 * The gateway as an OAuth 2.1 resource server with the MCP SDK's own client configured as a hosted client is: the
 * gateway's URL and an access token, no other header (docs/contract.md section 6). Every refused token is refused
 * before anything is proposed; calls without ids are the same action in their session and another one in another
 * session; a client with URL elicitation is asked to open the review page and gets the settled result.
 */
class McpGatewayOAuthIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final String UPSTREAM_TOKEN = "upstream-token-abcdef";
    private static final String SESSION_TASK = "mcp-" + GateFixture.ORG;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration APPROVAL_WAIT = Duration.ofSeconds(8);
    /** The wait and progress of a gateway of the bounded-wait test's own, which waits that out. */
    private static final Duration BOUNDED_WAIT = Duration.ofMillis(2_500);
    private static final Duration BOUNDED_PROGRESS = Duration.ofSeconds(1);

    @TempDir
    static Path dir;

    /** What the tests started, closed in reverse order. */
    static final Shutdown started = new Shutdown("McpGatewayOAuthIT");
    static GateFixture gate;
    static SandboxMcpServer upstream;
    static TestIssuer issuer;
    static McpGateway gateway;
    static String resource;
    /** The gateway's settings, for another gateway in front of the same gate. */
    static Map<String, String> settings;

    @BeforeAll
    static void start(TestInfo test) throws Exception {
        gate = started.push(new GateFixture(KAFKA, TestNames.topicPrefix(test), TestNames.applicationId(test),
                dir.resolve("state")));
        // the org's session task: what a call runs under when its request names no task
        gate.policy("task:" + SESSION_TASK, "task", TaskState.newBuilder().setTaskId(SESSION_TASK).setVersion(1)
                .setStatus(LifecycleStatus.ACTIVE).setOrgId(GateFixture.ORG).build());
        upstream = started.push(new SandboxMcpServer());
        issuer = started.push(new TestIssuer());
        Map<String, String> config = upstream.gatewayConfig(KAFKA.bootstrapServers(), gate.prefix());
        // no token file: OAuth alone
        config.put(GatewayConfig.OAUTH_ISSUER_CONFIG, issuer.issuer());
        config.put(GatewayConfig.OAUTH_SCOPES_CONFIG, TestIssuer.SCOPE);
        config.put(GatewayConfig.REVIEW_URL_CONFIG, "http://review.example/review/{task_id}/{tool_call_id}");
        config.put(GatewayConfig.APPROVAL_WAIT_MS_CONFIG, Long.toString(APPROVAL_WAIT.toMillis()));
        config.put(GatewayConfig.UPSTREAM_PREFIX + "sandbox.credential",
                "file:" + Files.writeString(dir.resolve("upstream-token"), UPSTREAM_TOKEN + "\n"));
        settings = Map.copyOf(config);
        GatewayConfig gatewayConfig = GatewayConfig.from(config);
        assertThat(gatewayConfig.tokensFile()).isNull();
        McpImport.run(gatewayConfig, "sandbox", Set.of(GateFixture.LOOKUP, GateFixture.SEND));
        gateway = started.push(McpGateway.start(gatewayConfig));
        resource = gateway.resource().toString();
        assertThat(resource).isEqualTo("http://127.0.0.1:" + gateway.port() + "/mcp");
    }

    @AfterAll
    static void stop() {
        started.close();
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    private static String token() throws Exception {
        return issuer.token(resource, c -> { });
    }

    /** A client as a hosted one is configured: the URL and a bearer token, nothing else. */
    private static McpSyncClient client(String token, Function<McpClient.SyncSpec, McpClient.SyncSpec> spec) {
        return client(gateway, token, spec);
    }

    private static McpSyncClient client(McpGateway to, String token,
            Function<McpClient.SyncSpec, McpClient.SyncSpec> spec) {
        McpClient.SyncSpec s = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:"
                        + to.port()).endpoint(McpGateway.ENDPOINT)
                .addHttpRequestCustomizer((b, method, uri, body, ctx) -> b.header("Authorization", "Bearer " + token))
                .build()).requestTimeout(Duration.ofSeconds(60));
        return spec.apply(s).build();
    }

    /**
     * A client with only URL elicitation declared, answering each request with {@code answer}, handing completions
     * and progress notifications to {@code completed} and {@code progress}.
     */
    private static McpSyncClient eliciting(String token,
            Function<McpSchema.ElicitUrlRequest, McpSchema.ElicitResult.Action> answer,
            java.util.function.Consumer<McpSchema.ElicitationCompleteNotification> completed,
            java.util.function.Consumer<McpSchema.ProgressNotification> progress) {
        return eliciting(gateway, token, answer, completed, progress);
    }

    private static McpSyncClient eliciting(McpGateway to, String token,
            Function<McpSchema.ElicitUrlRequest, McpSchema.ElicitResult.Action> answer,
            java.util.function.Consumer<McpSchema.ElicitationCompleteNotification> completed,
            java.util.function.Consumer<McpSchema.ProgressNotification> progress) {
        return client(to, token, s -> s
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation(false, true).build())
                .urlElicitation(request -> McpSchema.ElicitResult.builder(answer.apply(request)).build())
                .elicitationCompleteConsumer(completed).progressConsumer(progress));
    }

    private static HttpResponse<String> post(String token, String body, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(resource))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        headers.forEach(b::header);
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static final String CALL_SEND = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"send_email\",\"arguments\":{\"to\":\"ops@example.com\",\"body\":\"x\"}}}";

    /** Records on {@code topic} so far (every partition's end offset). */
    private static long records(String topic) throws Exception {
        String name = gate.prefix() + topic;
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        KAFKA.admin().describeTopics(List.of(name)).allTopicNames().get().get(name).partitions()
                .forEach(p -> latest.put(new TopicPartition(name, p.partition()), OffsetSpec.latest()));
        return KAFKA.admin().listOffsets(latest).all().get().values().stream().mapToLong(i -> i.offset()).sum();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> state(McpSchema.CallToolResult result) {
        assertThat(result.structuredContent()).as("%s", result.content()).isInstanceOf(Map.class);
        return (Map<String, Object>) result.structuredContent();
    }

    private static McpSchema.CallToolResult send(McpSyncClient client, String body) {
        return client.callTool(McpSchema.CallToolRequest.builder("send_email")
                .arguments(Map.of("to", "ops@example.com", "body", body)).build());
    }

    /**
     * One more proposal through the gateway, answered: the gateway's one client sends in order, so whatever it was
     * given before this (by a call it refused, say) is on the broker by then.
     */
    private static void proposeOneMore() throws Exception {
        McpSyncClient client = client(token(), s -> s);
        try {
            client.initialize();
            assertThat(state(send(client, "one more " + java.util.UUID.randomUUID())))
                    .containsEntry("state", "WAITING_APPROVAL");
        } finally {
            client.close();
        }
    }

    /** The latest receipt the gate published under {@code key}, or null. */
    private static Receipt latestReceipt(String key) {
        String topic = Topics.RECEIPTS.name(gate.prefix());
        List<byte[]> values = KeyRecords.values(KAFKA.clientProperties(), topic, key);
        return values.isEmpty() ? null
                : Topics.RECEIPTS.valueSerde().deserializer().deserialize(topic, values.get(values.size() - 1));
    }

    /** Approves the action the review URL names once the gate holds it, and answers its attempt as an executor. */
    private static CompletableFuture<Void> approveLater(String reviewUrl) {
        ActionKey key = ActionKey.parse(reviewUrl.substring(reviewUrl.indexOf("/review/") + "/review/".length()));
        return CompletableFuture.runAsync(() -> {
            Receipt waiting = org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> latestReceipt(key.toString()), r -> r != null);
            gate.approve(key.taskId(), key.toolCallId(), waiting.getActionDigest());
            gate.succeed(key.taskId(), key.toolCallId(), 1);
        });
    }

    // ---- who the host is ------------------------------------------------------------------------------------

    @Test
    void shouldChallengeWithTheProtectedResourceMetadataAndServeIt() throws Exception {
        HttpResponse<String> none = post(null, CALL_SEND, Map.of());
        assertThat(none.statusCode()).isEqualTo(401);
        String metadataUrl = "http://127.0.0.1:" + gateway.port() + "/.well-known/oauth-protected-resource/mcp";
        assertThat(none.headers().firstValue("WWW-Authenticate")).contains("Bearer resource_metadata=\"" + metadataUrl
                + "\", scope=\"" + TestIssuer.SCOPE + "\"");
        assertThat(none.body()).startsWith("{\"jsonrpc\":\"2.0\"");
        for (String url : List.of(metadataUrl, "http://127.0.0.1:" + gateway.port()
                + "/.well-known/oauth-protected-resource")) {
            HttpResponse<String> doc = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(doc.statusCode()).isEqualTo(200);
            JsonNode metadata = JSON.readTree(doc.body());
            assertThat(metadata.path("resource").asText()).isEqualTo(resource);
            assertThat(metadata.path("authorization_servers").get(0).asText()).isEqualTo(issuer.issuer());
            assertThat(metadata.path("scopes_supported").get(0).asText()).isEqualTo(TestIssuer.SCOPE);
            assertThat(metadata.path("bearer_methods_supported").get(0).asText()).isEqualTo("header");
        }
    }

    @Test
    void shouldTellAKeptAliveClientWhenTheChallengeEndsItsConnection() throws Exception {
        // an MCP client's first POST has no token; its next request (the resource metadata) goes on the same pooled
        // connection. When the 401 leaves before the body has arrived, the server cannot keep that connection and
        // must say so, or the client's next request dies on a socket the server closed.
        String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}";
        String metadata = "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        String[] mcpHeaders = {"Content-Type: application/json", "Accept: application/json, text/event-stream"};
        try (RawHttp client = new RawHttp("127.0.0.1", gateway.port())) {
            client.send(RawHttp.head("POST", "/mcp", initialize.length(), mcpHeaders));
            RawHttp.Answer challenge = client.read();
            boolean reused = client.send(initialize + metadata);
            RawHttp.Answer next = reused ? client.read() : null;
            assertThat(challenge.status()).isEqualTo(401);
            assertThat(challenge.headers().get("www-authenticate")).contains("resource_metadata=");
            assertThat(challenge.saysClose() || next != null)
                    .as("a connection the 401 did not say it closes carries the next request").isTrue();
        }
        try (RawHttp client = new RawHttp("127.0.0.1", gateway.port())) {
            // the body whole with the head: the connection stays and serves the metadata
            client.send(RawHttp.head("POST", "/mcp", initialize.length(), mcpHeaders) + initialize);
            assertThat(client.read().status()).isEqualTo(401);
            client.send(metadata);
            RawHttp.Answer doc = client.read();
            assertThat(doc).as("the metadata on the same connection").isNotNull();
            assertThat(JSON.readTree(doc.body()).path("resource").asText()).isEqualTo(resource);
        }
    }

    @Test
    void shouldRefuseEveryBadTokenBeforeAnythingIsProposed() throws Exception {
        Instant now = Instant.now();
        SignedJWT confused = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(issuer.key().getKeyID())
                .build(), issuer.claims(resource).build());
        confused.sign(new MACSigner(issuer.key().toRSAPublicKey().getEncoded()));
        Map<String, String> invalid = Map.of(
                "another audience", issuer.token("https://other.example/mcp", c -> { }),
                "expired", issuer.token(resource, c -> c.expirationTime(Date.from(now.minusSeconds(120)))),
                "not valid yet", issuer.token(resource, c -> c.notBeforeTime(Date.from(now.plusSeconds(300)))),
                "unsigned", new PlainJWT(issuer.claims(resource).build()).serialize(),
                "HS256 is not accepted", confused.serialize(),
                "another issuer", issuer.token(resource, c -> c.issuer("https://evil.example")),
                "no org", issuer.token(resource, c -> c.claim("org", null)),
                "not a JWT", "static-token-that-no-file-holds");
        long proposals = records("proposals");
        int lookups = upstream.calls("lookup");
        for (Map.Entry<String, String> bad : invalid.entrySet()) {
            HttpResponse<String> answer = post(bad.getValue(), CALL_SEND, Map.of());
            assertThat(answer.statusCode()).as(bad.getKey()).isEqualTo(401);
            assertThat(answer.headers().firstValue("WWW-Authenticate").orElseThrow()).as(bad.getKey())
                    .startsWith("Bearer error=\"invalid_token\"").contains(bad.getKey())
                    .contains("resource_metadata=\"");
            McpSyncClient client = client(bad.getValue(), s -> s);
            assertThatThrownBy(client::initialize).as(bad.getKey()).isNotNull();
            client.close();
        }
        HttpResponse<String> noScope = post(issuer.token(resource, c -> c.claim("scope", "openid")), CALL_SEND,
                Map.of());
        assertThat(noScope.statusCode()).isEqualTo(403);
        assertThat(noScope.headers().firstValue("WWW-Authenticate").orElseThrow())
                .startsWith("Bearer error=\"insufficient_scope\", scope=\"" + TestIssuer.SCOPE + "\"");
        proposeOneMore();
        assertThat(records("proposals")).as("nothing was proposed but the one more").isEqualTo(proposals + 1);
        assertThat(upstream.calls("lookup")).isEqualTo(lookups);
    }

    @Test
    void shouldKeepAnotherOrgsTokenOutOfThisOrgsTasks() throws Exception {
        // valid, of org globex: its session task is not acme's, and naming acme's task is refused as before
        String globex = issuer.token(resource, c -> c.claim("org", "globex"));
        long proposals = records("proposals");
        McpSyncClient other = client(globex, s -> s);
        try {
            other.initialize();
            assertThat(state(send(other, "from globex"))).containsEntry("state", "ERROR");
            McpSyncClient named = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:"
                    + gateway.port()).endpoint(McpGateway.ENDPOINT).addHttpRequestCustomizer((b, m, u, body, ctx) ->
                    b.header("Authorization", "Bearer " + globex).header(BearerAuthFilter.TASK_HEADER,
                            GateFixture.TASK)).build()).build();
            named.initialize();
            assertThat((String) state(send(named, "from globex")).get("detail"))
                    .contains("is not a task of this host's org");
            named.close();
        } finally {
            other.close();
        }
        proposeOneMore();
        assertThat(records("proposals")).as("nothing was proposed but the one more").isEqualTo(proposals + 1);
    }

    // ---- identity of calls without ids ------------------------------------------------------------------------

    @Test
    void shouldServeAClientWithOnlyTheUrlAndItsToken() throws Exception {
        McpSyncClient host = client(token(), s -> s);
        McpSyncClient later = client(token(), s -> s);
        try {
            McpSchema.InitializeResult init = host.initialize();
            assertThat(init.protocolVersion()).isEqualTo("2025-11-25");
            McpSchema.Tool send = host.listTools().tools().stream().filter(t -> t.name().equals("send_email"))
                    .findFirst().orElseThrow();
            assertThat(send.description()).endsWith(GatewayTools.REVIEW_NOTE);

            McpSchema.CallToolResult read = host.callTool(McpSchema.CallToolRequest.builder("lookup")
                    .arguments(Map.of("q", "disk")).build());
            assertThat(read.meta()).containsEntry(GatewayTools.DATA_META, true);
            assertThat(upstream.lastAuthorization()).as("the access token never goes upstream")
                    .isEqualTo("Bearer " + UPSTREAM_TOKEN);

            Map<String, Object> first = state(send(host, "session one"));
            assertThat(first).containsEntry("state", "WAITING_APPROVAL");
            String key = (String) first.get("action_key");
            assertThat(key).startsWith(SESSION_TASK + "/mcp-");
            // a retry in the same session (a lost answer, say) is the same action
            assertThat(state(send(host, "session one"))).containsEntry("action_key", key)
                    .containsEntry("action_digest", first.get("action_digest"));
            // the same call in another session is another action, with its own review
            later.initialize();
            Map<String, Object> other = state(send(later, "session one"));
            assertThat(other).containsEntry("state", "WAITING_APPROVAL");
            assertThat(other.get("action_key")).isNotEqualTo(key);
        } finally {
            host.close();
            later.close();
        }
    }

    @Test
    void shouldRefuseASessionThatAnotherHostOpened() throws Exception {
        McpSyncClient owner = client(token(), s -> s);
        try {
            owner.initialize();
            HttpResponse<String> init = post(token(), "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
                    + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":"
                    + "\"t\",\"version\":\"1\"}}}", Map.of());
            String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
            String mallory = issuer.token(resource, c -> c.subject("mallory"));
            HttpResponse<String> borrowed = post(mallory, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                    Map.of("Mcp-Session-Id", session, "MCP-Protocol-Version", "2025-11-25"));
            assertThat(borrowed.statusCode()).isEqualTo(404);
            HttpResponse<String> own = post(token(), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                    Map.of("Mcp-Session-Id", session, "MCP-Protocol-Version", "2025-11-25"));
            assertThat(own.statusCode()).isEqualTo(200);
        } finally {
            owner.close();
        }
    }

    // ---- approval through the client ------------------------------------------------------------------------

    @Test
    void shouldAskAClientWithUrlElicitationToOpenTheReviewPageAndAnswerTheSettledResult() throws Exception {
        List<McpSchema.ElicitUrlRequest> asked = new CopyOnWriteArrayList<>();
        List<String> completed = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> approvals = new CopyOnWriteArrayList<>();
        McpSyncClient host = eliciting(token(), request -> {
            asked.add(request);
            // the person opens the page and approves there
            approvals.add(approveLater(request.url()));
            return McpSchema.ElicitResult.Action.ACCEPT;
        }, n -> completed.add(n.elicitationId()), n -> { });
        try {
            host.initialize();
            long decisions = records("decisions");
            McpSchema.CallToolResult result = send(host, "approve through the client");
            Map<String, Object> settled = state(result);
            assertThat(settled).as("%s", settled).containsEntry("state", "SUCCEEDED").containsEntry("attempts", 1);
            assertThat(result.isError()).isFalse();
            String key = (String) settled.get("action_key");
            assertThat(asked).singleElement().satisfies(r -> {
                assertThat(r.url()).isEqualTo("http://review.example/review/" + key);
                assertThat(r.message()).contains("send_email", key).doesNotContain("http");
            });
            // the completion notification travels on the client's stream, handled apart from the call's answer
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !completed.isEmpty());
            assertThat(completed).containsExactly(asked.get(0).elicitationId());
            approvals.forEach(CompletableFuture::join);
            assertThat(records("decisions")).isEqualTo(decisions + 1);
            assertThat(gate.attempts(ActionKey.parse(key).toolCallId())).hasSize(1);
        } finally {
            host.close();
        }
    }

    @Test
    void shouldChangeNothingAtTheGateWhenTheClientDeclines() throws Exception {
        List<McpSchema.ElicitUrlRequest> asked = new CopyOnWriteArrayList<>();
        McpSyncClient host = eliciting(token(), request -> {
            asked.add(request);
            return asked.size() == 1 ? McpSchema.ElicitResult.Action.DECLINE : McpSchema.ElicitResult.Action.CANCEL;
        }, n -> { }, n -> { });
        try {
            host.initialize();
            long decisions = records("decisions");
            long started = System.nanoTime();
            Map<String, Object> first = state(send(host, "declined"));
            assertThat(first).containsEntry("state", "WAITING_APPROVAL").containsKey("review_url");
            assertThat((String) first.get("detail")).contains("not opened (decline)");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("answered at once")
                    .isLessThan(APPROVAL_WAIT);
            Map<String, Object> again = state(send(host, "declined"));
            assertThat(again).containsEntry("state", "WAITING_APPROVAL")
                    .containsEntry("action_key", first.get("action_key"));
            assertThat((String) again.get("detail")).contains("not opened (cancel)");
            assertThat(asked).hasSize(2);
            proposeOneMore();
            assertThat(records("decisions")).as("no decision: only a person on the review page decides")
                    .isEqualTo(decisions);
            assertThat(latestReceipt((String) first.get("action_key")).getStatus().name())
                    .isEqualTo("WAITING_APPROVAL");
        } finally {
            host.close();
        }
    }

    @Test
    void shouldAnswerTheStateAfterTheBoundedWaitAndTheSettledResultToTheRetry() throws Exception {
        Map<String, String> bounded = new HashMap<>(settings);
        bounded.put(GatewayConfig.APPROVAL_WAIT_MS_CONFIG, Long.toString(BOUNDED_WAIT.toMillis()));
        bounded.put(GatewayConfig.APPROVAL_PROGRESS_MS_CONFIG, Long.toString(BOUNDED_PROGRESS.toMillis()));
        List<McpSchema.ElicitUrlRequest> asked = new CopyOnWriteArrayList<>();
        List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
        try (McpGateway waiting = McpGateway.start(GatewayConfig.from(bounded))) {
            McpSyncClient host = eliciting(waiting, issuer.token(waiting.resource().toString(), c -> { }), request -> {
                asked.add(request);
                return McpSchema.ElicitResult.Action.ACCEPT;
            }, n -> { }, progress::add);
            try {
                host.initialize();
                long started = System.nanoTime();
                Map<String, Object> first = state(host.callTool(McpSchema.CallToolRequest.builder("send_email")
                        .arguments(Map.of("to", "ops@example.com", "body", "nobody decides in time"))
                        .progressToken("p-wait").build()));
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(BOUNDED_WAIT);
                assertThat(first).containsEntry("state", "WAITING_APPROVAL")
                        .containsEntry("detail", ClientApproval.CALL_AGAIN);
                // the request carried a progress token: the wait said so every second here (a client may reset its
                // timeout)
                assertThat(progress).isNotEmpty().allSatisfy(p -> assertThat(p.progressToken()).isEqualTo("p-wait"));
                assertThat(BOUNDED_WAIT).isGreaterThan(BOUNDED_PROGRESS);
                // the person approves now; a retry in the same session waits without asking again and returns the
                // outcome (on a slow machine the settling may outlast one short wait: then it says to call again)
                CompletableFuture<Void> approved = approveLater((String) first.get("review_url"));
                Map<String, Object> retry = state(send(host, "nobody decides in time"));
                for (int again = 0; again < 10 && ClientApproval.CALL_AGAIN.equals(retry.get("detail")); again++) {
                    retry = state(send(host, "nobody decides in time"));
                }
                assertThat(retry).containsEntry("state", "SUCCEEDED")
                        .containsEntry("action_key", first.get("action_key")).doesNotContainKey("detail");
                assertThat(asked).hasSize(1);
                approved.join();
            } finally {
                host.close();
            }
        }

        // a client without URL elicitation keeps today's answer, at once
        McpSyncClient plain = client(token(), s -> s);
        try {
            plain.initialize();
            long started = System.nanoTime();
            assertThat(state(send(plain, "no elicitation"))).containsEntry("state", "WAITING_APPROVAL")
                    .containsKey("review_url").doesNotContainKey("detail");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(APPROVAL_WAIT);
        } finally {
            plain.close();
        }
    }
}
