package io.actiongate.http;

import static io.actiongate.executor.ItSupport.createTopics;
import static io.actiongate.executor.ItSupport.readToEnd;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.DecisionType;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.RawHttp;
import io.actiongate.key.ActionKey;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * {@code POST /v1/proposals} and the long-polling {@code GET /v1/actions/...} of a real node (gate and executor on
 * the embedded broker, the webhook connector aimed at the sandbox provider), every request and answer checked
 * against the committed OpenAPI document. The tool host packages under {@code clients/} and their examples run against
 * a node in {@link ClientPackagesIT}.
 */
class HttpProposalsIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    @TempDir
    static Path dir;

    static final String PREFIX = "http-proposals-it.";
    static final String ORG = ProposalsNode.ORG;
    static final String TASK = ProposalsNode.TASK;
    static final String TOOL = ProposalsNode.TOOL;
    static final String SCHEMA = ProposalsNode.SCHEMA;
    static final String HOST_TOKEN = "host-token-acme-0001";
    static final String OTHER_ORG_TOKEN = "host-token-globex-01";
    static final String NODE_TOKEN = "node-operator-token-01";
    static final ObjectMapper JSON = new ObjectMapper();
    static final OpenApiContract CONTRACT = new OpenApiContract();

    static final java.net.http.HttpClient CLIENT = java.net.http.HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5)).build();

    static ProposalsNode node;
    static SandboxWebhookProvider sandbox;
    static int port;

    @BeforeAll
    static void startNode() throws Exception {
        Path hosts = Files.writeString(dir.resolve("hosts"), "# TOKEN PRINCIPAL_ID ORG_ID PROFILE_ID\n"
                + HOST_TOKEN + " user-1 " + ORG + " chat-default\n"
                + OTHER_ORG_TOKEN + " user-9 globex chat-default\n");
        Path nodeTokens = Files.writeString(dir.resolve("node-tokens"), NODE_TOKEN + "\n");
        // a body deadline of 1 s, not the default 10: the slow-client test waits it out (every other request sends
        // its body right behind its headers)
        node = ProposalsNode.start(KAFKA, PREFIX, dir, hosts, Map.of("http.auth.tokens.file", nodeTokens.toString(),
                "http.proposals.max.body.bytes", "8192", "http.body.timeout.ms", "1000"));
        sandbox = node.sandbox;
        port = node.port();
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void shouldAnswerWaitingApprovalWithAReviewUrlAndSucceedAfterTheApproval() throws Exception {
        Answer first = propose(HOST_TOKEN, body("c-approve", "ops@example.com"));
        assertThat(first.status).isEqualTo(200);
        assertThat(first.json.path("status").asText()).isEqualTo("WAITING_APPROVAL");
        assertThat(first.json.path("review_url").asText())
                .isEqualTo("http://127.0.0.1:8081/review/" + TASK + "/c-approve");
        assertThat(first.json.path("action_url").asText()).isEqualTo("/v1/actions/" + TASK + "/c-approve");
        String digest = first.json.path("action_digest").asText();

        // a long poll until decided answers as soon as the approval lands, not after its wait
        CompletableFuture<Answer> decided = CompletableFuture.supplyAsync(() ->
                get(HOST_TOKEN, "/v1/actions/" + TASK + "/c-approve?wait=60s&until=decided"));
        Thread.sleep(500);
        assertThat(decided).isNotDone();
        long approvedAt = System.nanoTime();
        node.decide(TASK, "c-approve", digest, DecisionType.APPROVE);
        Answer afterApproval = decided.get(60, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - approvedAt)).isLessThan(Duration.ofSeconds(30));
        assertThat(afterApproval.status).isEqualTo(200);
        assertThat(afterApproval.json.path("status").asText()).isNotEqualTo("WAITING_APPROVAL");
        assertThat(afterApproval.json.has("input")).isFalse();

        Answer done = get(HOST_TOKEN, "/v1/actions/" + TASK + "/c-approve?wait=60s&until=terminal");
        assertThat(done.json.path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(done.json.path("provider_receipt_id").asText()).isNotEmpty();

        // the same ids and data again: the same action, its settled receipt, no second email
        Answer again = propose(HOST_TOKEN, body("c-approve", "ops@example.com"));
        assertThat(again.status).isEqualTo(200);
        assertThat(again.json.path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(again.json.path("action_digest").asText()).isEqualTo(digest);
        assertThat(sandbox.effects("idem-c-approve")).isEqualTo(1);
    }

    @Test
    void shouldAnswerTheDecidedOrTerminalStateInOneRequestWhenAskedToWait() throws Exception {
        // waiting for the terminal state of an action a human has not decided: the state as it is when the wait ends
        Answer undecided = send(port, "POST", "/v1/proposals?wait=1s&until=terminal", HOST_TOKEN,
                body("c-one-request", "ops@example.com").toString());
        assertThat(undecided.status).isEqualTo(200);
        assertThat(undecided.json.path("status").asText()).isEqualTo("WAITING_APPROVAL");
        assertThat(undecided.json.path("review_url").asText()).endsWith("/" + TASK + "/c-one-request");
        String digest = undecided.json.path("action_digest").asText();

        // the same call again (a retry), now waiting for the decision: one request answers once a human decided
        CompletableFuture<Answer> decided = CompletableFuture.supplyAsync(() -> send(port, "POST",
                "/v1/proposals?wait=60s&until=decided", HOST_TOKEN, body("c-one-request", "ops@example.com").toString()));
        Thread.sleep(500);
        assertThat(decided).isNotDone();
        node.decide(TASK, "c-one-request", digest, DecisionType.APPROVE);
        Answer afterApproval = decided.get(60, TimeUnit.SECONDS);
        assertThat(afterApproval.status).isEqualTo(200);
        assertThat(afterApproval.json.path("status").asText()).isIn("APPROVED", "DISPATCHING", "SUCCEEDED");

        Answer settled = send(port, "POST", "/v1/proposals?wait=60s", HOST_TOKEN,
                body("c-one-request", "ops@example.com").toString());
        assertThat(settled.status).isEqualTo(200);
        assertThat(settled.json.path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(settled.json.path("action_digest").asText()).isEqualTo(digest);
        assertThat(sandbox.effects("idem-c-one-request")).isEqualTo(1);

        // a wait the API does not take is refused before anything is published
        Answer refused = send(port, "POST", "/v1/proposals?wait=soon", HOST_TOKEN,
                body("c-never-published", "ops@example.com").toString());
        assertThat(refused.status).isEqualTo(400);
        assertThat(refused.json.path("error").asText()).isEqualTo("invalid_query");
        assertThat(get(HOST_TOKEN, "/v1/actions/" + TASK + "/c-never-published").status).isEqualTo(404);
    }

    @Test
    void shouldAnswerOtherDataUnderTheSameIdsWith409NamingBothDigests() {
        Answer first = propose(HOST_TOKEN, body("c-conflict", "ops@example.com"));
        assertThat(first.json.path("status").asText()).isEqualTo("WAITING_APPROVAL");
        Answer other = propose(HOST_TOKEN, body("c-conflict", "ceo@example.com"));
        assertThat(other.status).isEqualTo(409);
        // a conflict names action digests: the identity is the whole frozen action, not the input alone
        assertThat(other.json.path("existing_digest").asText()).isEqualTo(first.json.path("action_digest").asText());
        assertThat(other.json.path("offered_digest").asText()).startsWith("sha256:")
                .isNotEqualTo(first.json.path("action_digest").asText());
        // the held action is untouched
        assertThat(get(HOST_TOKEN, "/v1/actions/" + TASK + "/c-conflict").json.path("input_digest").asText())
                .isEqualTo(first.json.path("input_digest").asText());
    }

    @Test
    void shouldTakeTheTaskVersionFromThePolicyTopicUnlessTheBodyGivesOne() {
        ObjectNode stale = body("c-stale", "ops@example.com");
        stale.put("task_version", 7);
        Answer rejected = propose(HOST_TOKEN, stale);
        assertThat(rejected.status).isEqualTo(200);
        assertThat(rejected.json.path("status").asText()).isEqualTo("REJECTED");
        assertThat(rejected.json.path("reason_code").asText()).isEqualTo("TASK_VERSION_CHANGED");
        assertThat(rejected.json.has("review_url")).isFalse();
    }

    @Test
    void shouldRefuseBadBodiesWithAReasonCodeAndPublishNothing() {
        Map<String, String> bodies = new java.util.LinkedHashMap<>();
        String valid = body("c-bad-0", "ops@example.com").toString();
        bodies.put("UNKNOWN_MEMBER", valid.replace("c-bad-0", "c-bad-1").replace("\"summary\"",
                "\"org_id\":\"globex\",\"summary\""));
        bodies.put("DUPLICATE_KEY", valid.replace("c-bad-0", "c-bad-2").replace("\"summary\"",
                "\"tool_call_id\":\"c-bad-2b\",\"summary\""));
        bodies.put("INPUT_NOT_OBJECT", valid.replace("c-bad-0", "c-bad-3").replaceAll("\"input\":\\{[^}]*}",
                "\"input\":[1,2]"));
        bodies.put("INVALID_ID", valid.replace("c-bad-0", "c bad 4"));
        bodies.put("DIGEST_MISMATCH", valid.replace("c-bad-0", "c-bad-5").replace("\"summary\"",
                "\"input_digest\":\"sha256:" + "0".repeat(64) + "\",\"summary\""));
        bodies.put("BODY_TOO_LARGE", valid.replace("c-bad-0", "c-bad-6").replace("disk is full",
                "x".repeat(9000)));
        bodies.put("INVALID_JSON", "{\"task_id\":");
        bodies.forEach((reason, text) -> {
            Answer answer = post(HOST_TOKEN, text);
            assertThat(answer.status).as(reason).isEqualTo(400);
            assertThat(answer.json.path("reason_code").asText()).as(text).isEqualTo(reason);
        });
        Answer mismatch = post(HOST_TOKEN, bodies.get("DIGEST_MISMATCH"));
        assertThat(mismatch.json.path("offered_digest").asText()).isEqualTo("sha256:" + "0".repeat(64));
        assertThat(mismatch.json.path("computed_digest").asText()).startsWith("sha256:");

        // a proposal the node publishes after the refusals: answered, so it is on the topic, behind anything the
        // node's producer was given before it
        assertThat(propose(HOST_TOKEN, body("c-after-bad", "ops@example.com")).status).isEqualTo(200);
        List<ActionProposal> published = readToEnd(KAFKA.bootstrapServers(), Topics.PROPOSALS.name(PREFIX),
                Topics.PROPOSALS);
        assertThat(published).extracting(ActionProposal::getToolCallId).contains("c-after-bad")
                .noneMatch(id -> id.startsWith("c-bad") || id.startsWith("c bad"));
    }

    @Test
    void shouldNeverEchoACredentialInAnyRefusalAnswerLogLineOrTopic() {
        // Jackson's messages and member names passed through quoted the input. An attacker's (or a
        // careless host's) token in every place a refusal could repeat it: no answer, log line or record holds it
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
                new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
                .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        List<String> answers = new ArrayList<>();
        Map<String, Integer> reasons = new java.util.TreeMap<>();
        try {
            int n = 0;
            for (String token : io.actiongate.testing.TokenShapes.all().values()) {
                String quoted = JSON.getNodeFactory().textNode(token).toString();
                String valid = body("c-leak-" + n++, "ops@example.com").toString();
                List<String> bodies = List.of(
                        // INVALID_JSON: unquoted, cut off inside a string, trailing, a bare token
                        valid.replace("\"disk is full\"", token),
                        "{\"task_id\":\"" + TASK + "\",\"summary\":" + quoted.substring(0, quoted.length() - 1),
                        valid + " " + token,
                        token,
                        "{" + token + ":1}",
                        // DUPLICATE_KEY: the token as a member name twice, at the top and inside input
                        valid.replace("\"summary\"", quoted + ":1," + quoted + ":2,\"summary\""),
                        valid.replace("\"to\":", quoted + ":1," + quoted + ":2,\"to\":"),
                        // UNKNOWN_MEMBER: at the top, in origin, in an attachment
                        valid.replace("\"summary\"", quoted + ":1,\"summary\""),
                        valid.replace("\"summary\"", "\"origin\":{\"conversation_id\":\"c\",\"turn_id\":\"t\","
                                + quoted + ":1},\"summary\""),
                        valid.replace("\"summary\"", "\"attachments\":[{" + quoted + ":1}],\"summary\""),
                        // INVALID_MEMBER, INPUT_NOT_OBJECT, INVALID_ID, DIGEST_MISMATCH, MISSING_MEMBER
                        valid.replace("\"summary\"", "\"claimed_annotations\":{" + quoted + ":1},\"summary\""),
                        valid.replace("\"summary\"", "\"task_version\":" + quoted + ",\"summary\""),
                        valid.replaceAll("\"input\":\\{[^}]*}", "\"input\":" + quoted),
                        valid.replace("\"" + TASK + "\"", JSON.getNodeFactory().textNode(token + " x").toString()),
                        valid.replace("\"summary\"", "\"input_digest\":" + quoted + ",\"summary\""),
                        valid.replace("\"provider\":\"webhook\",", "").replace("\"idem-", "\"" + token + " idem-"),
                        valid.replace("\"summary\":\"", "\"summary\":\"" + token + " " + "y".repeat(300)),
                        // TASK_NOT_OWNED: the token is a valid id, of no task of this org
                        valid.replace("\"" + TASK + "\"", token.matches("[A-Za-z0-9._:-]{1,128}") ? quoted
                                : "\"T-none\""));
                for (String text : bodies) {
                    Answer answer = post(HOST_TOKEN, text);
                    answers.add(answer.status + " " + answer.json + " " + answer.headers.map());
                    reasons.merge(answer.status + " " + answer.json.path("reason_code").asText(), 1, Integer::sum);
                    assertThat(answer.status).as(text).isIn(400, 403);
                }
            }
        } finally {
            root.detachAppender(logs);
        }
        assertThat(reasons.keySet()).as("the refusal paths walked").contains("400 INVALID_JSON", "400 DUPLICATE_KEY",
                "400 UNKNOWN_MEMBER", "400 INVALID_MEMBER", "400 INPUT_NOT_OBJECT", "400 INVALID_ID",
                "400 DIGEST_MISMATCH", "400 MISSING_MEMBER", "403 TASK_NOT_OWNED");
        assertThat(answers).noneMatch(io.actiongate.testing.TokenShapes::leaks);
        assertThat(logs.list).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                .noneMatch(io.actiongate.testing.TokenShapes::leaks);
        assertThat(logs.list).extracting(e -> e.getThrowableProxy() == null ? null : e.getThrowableProxy().getMessage())
                .noneMatch(io.actiongate.testing.TokenShapes::leaks);
        // nothing was published; and no record of any topic the node writes holds a token
        for (String topic : List.of(Topics.PROPOSALS.name(PREFIX), Topics.DEAD_LETTERS.name(PREFIX),
                Topics.RECEIPTS.name(PREFIX))) {
            assertThat(rawValues(topic)).as(topic).noneMatch(io.actiongate.testing.TokenShapes::leaks);
        }
    }

    /**
     * Every value of {@code topic} as text (Avro strings are UTF-8 in the bytes): each partition read from its start
     * up to its end offset, aborted transactions' records included (read_uncommitted).
     */
    private static List<String> rawValues(String topic) {
        Map<String, Object> config = Map.of("bootstrap.servers", KAFKA.bootstrapServers(), "enable.auto.commit",
                "false");
        List<String> values = new ArrayList<>();
        org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer =
                new org.apache.kafka.clients.consumer.KafkaConsumer<>(config,
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer());
        try {
            List<org.apache.kafka.common.TopicPartition> partitions = consumer.partitionsFor(topic,
                    Duration.ofSeconds(10)).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<org.apache.kafka.common.TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                assertThat(System.nanoTime()).as("read %s up to %s in time", topic, end).isLessThan(deadline);
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value() == null ? ""
                        : new String(r.value(), java.nio.charset.StandardCharsets.ISO_8859_1)));
            }
        } finally {
            // no group, nothing to commit: a close would only wait out the fetch the broker holds for it
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
        }
        return values;
    }

    @Test
    void shouldRefuseAProposalUnderAnotherOrgsTaskAndPublishNothing() {
        // a host of globex, with its own valid token, names acme's task: the gate would refuse it without a receipt
        Answer foreign = post(OTHER_ORG_TOKEN, body("c-foreign", "ops@example.com").toString());
        assertThat(foreign.status).isEqualTo(403);
        assertThat(foreign.json.path("reason_code").asText()).isEqualTo("TASK_NOT_OWNED");
        Answer unknown = post(HOST_TOKEN,
                body("c-foreign", "ops@example.com").put("task_id", "T-unknown").toString());
        assertThat(unknown.status).isEqualTo(403);

        // the owner then proposes under the same ids as if nothing had happened
        assertThat(propose(HOST_TOKEN, body("c-foreign", "ops@example.com")).json.path("status").asText())
                .isEqualTo("WAITING_APPROVAL");
        // its proposal, answered, is on the topic behind anything the node's producer was given before: the refused
        // ones were never published
        List<ActionProposal> published = readToEnd(KAFKA.bootstrapServers(), Topics.PROPOSALS.name(PREFIX),
                Topics.PROPOSALS);
        assertThat(published).filteredOn(p -> p.getToolCallId().equals("c-foreign"))
                .extracting(ActionProposal::getTaskId, ActionProposal::getOrgId)
                .containsExactly(tuple(TASK, ORG));
    }

    @Test
    void shouldAnswer401WithoutAToolHostToken() {
        String valid = body("c-anon", "ops@example.com").toString();
        assertThat(post(null, valid).status).isEqualTo(401);
        assertThat(post("not-a-token-of-anyone", valid).status).isEqualTo(401);
        // the node's own operator token reads actions but is no tool host: it has no identity to propose with
        assertThat(post(NODE_TOKEN, valid).status).isEqualTo(401);
        assertThat(get(null, "/v1/actions/" + TASK + "/c-anon").status).isEqualTo(401);
    }

    @Test
    void shouldLetAKeptAliveHostGoOnAfterRefusalsThatNeverReadTheBody() throws Exception {
        // refusals answered before the body is read (401 without a valid token, 405, a bad query), the bodies whole
        // or arriving after the answer, then a valid proposal: what a host on urllib3, undici or KafkaJS's neighbours
        // does on one pooled connection. A server that closes must say so, or the next POST is lost on a dead socket.
        String valid = body("c-keepalive", "ops@example.com").toString();
        String json = "Content-Type: application/json";
        try (RawHttp host = new RawHttp("127.0.0.1", port)) {
            host.send(RawHttp.head("POST", "/v1/proposals", valid.length(), json, "Authorization: Bearer wrong")
                    + valid);
            assertThat(host.read().status()).isEqualTo(401);
            host.send(RawHttp.head("PUT", "/v1/proposals", valid.length(), json) + valid);
            assertThat(host.read().status()).isEqualTo(405);
            host.send(RawHttp.head("POST", "/v1/proposals?wait=forever", valid.length(), json,
                    "Authorization: Bearer " + HOST_TOKEN) + valid);
            assertThat(host.read().status()).isEqualTo(400);
            host.send(RawHttp.head("POST", "/v1/proposals", valid.length(), json, "Authorization: Bearer " + HOST_TOKEN)
                    + valid);
            RawHttp.Answer proposed = host.read();
            assertThat(proposed).as("the fourth answer on one connection").isNotNull();
            assertThat(proposed.status()).isEqualTo(200);
            assertThat(JSON.readTree(proposed.body()).path("status").asText()).isEqualTo("WAITING_APPROVAL");
        }
        try (RawHttp host = new RawHttp("127.0.0.1", port)) {
            // the head alone, refused; the body follows the answer
            host.send(RawHttp.head("POST", "/v1/proposals", valid.length(), json));
            RawHttp.Answer refused = host.read();
            boolean reused = host.send(valid + RawHttp.head("POST", "/v1/proposals", valid.length(), json,
                    "Authorization: Bearer " + HOST_TOKEN) + valid);
            RawHttp.Answer next = reused ? host.read() : null;
            assertThat(refused.status()).isEqualTo(401);
            assertThat(refused.saysClose() || next != null)
                    .as("a connection the 401 did not say it closes carries the next proposal").isTrue();
        }
    }

    @Test
    void shouldAnswerABodyOverTheLimitAndTheNextProposalOnTheSameConnection() throws Exception {
        // refused from its declared length before it is read, while the host is still sending it: the host reads
        // the refusal (no reset swallows it), the rest of the body is discarded, the connection stays open
        String valid = body("c-after-large", "ops@example.com").toString();
        String large = body("c-large", "ops@example.com").toString().replace("disk is full", "x".repeat(40_000));
        String json = "Content-Type: application/json";
        String bearer = "Authorization: Bearer " + HOST_TOKEN;
        try (RawHttp host = new RawHttp("127.0.0.1", port)) {
            host.send(RawHttp.head("POST", "/v1/proposals", large.length(), json, bearer) + large.substring(0, 2_000));
            RawHttp.Answer refused = host.read();
            assertThat(refused.status()).isEqualTo(400);
            assertThat(JSON.readTree(refused.body()).path("reason_code").asText()).isEqualTo("BODY_TOO_LARGE");
            assertThat(refused.saysClose()).as(refused.headers().toString()).isFalse();
            assertThat(host.send(large.substring(2_000))).as("the rest of the body").isTrue();
            assertThat(host.send(RawHttp.head("POST", "/v1/proposals", valid.length(), json, bearer) + valid)).isTrue();
            RawHttp.Answer next = host.read();
            assertThat(next).as("the next proposal on the connection").isNotNull();
            assertThat(next.status()).isEqualTo(200);
        }
        assertThat(readToEnd(KAFKA.bootstrapServers(), Topics.PROPOSALS.name(PREFIX), Topics.PROPOSALS))
                .extracting(ActionProposal::getToolCallId).contains("c-after-large").doesNotContain("c-large");
    }

    @Test
    void shouldShowAToolHostOnlyTheActionsOfItsOwnOrg() {
        Answer mine = propose(HOST_TOKEN, body("c-tenant", "ops@example.com"));
        assertThat(mine.json.path("status").asText()).isEqualTo("WAITING_APPROVAL");
        assertThat(get(OTHER_ORG_TOKEN, "/v1/actions/" + TASK + "/c-tenant").status).isEqualTo(404);
        assertThat(get(OTHER_ORG_TOKEN, "/v1/actions/" + TASK + "/c-tenant?wait=200ms").status).isEqualTo(404);
        assertThat(get(HOST_TOKEN, "/v1/actions/" + TASK + "/c-tenant").status).isEqualTo(200);
        assertThat(get(NODE_TOKEN, "/v1/actions/" + TASK + "/c-tenant").status).isEqualTo(200);
    }

    @Test
    void shouldAnswerALongPollWithTheStateAsItIsWhenTheWaitRunsOut() {
        propose(HOST_TOKEN, body("c-poll", "ops@example.com"));
        long start = System.nanoTime();
        Answer still = get(HOST_TOKEN, "/v1/actions/" + TASK + "/c-poll?wait=600ms&until=decided");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(still.status).isEqualTo(200);
        assertThat(still.json.path("status").asText()).isEqualTo("WAITING_APPROVAL");
        assertThat(get(HOST_TOKEN, "/v1/actions/" + TASK + "/c-none?wait=200ms").status).isEqualTo(404);
        assertThat(get(HOST_TOKEN, "/v1/actions/" + TASK + "/c-poll?wait=soon").status).isEqualTo(400);
    }

    @Test
    void shouldAnswer202ProposedWhenNoReceiptArrivesWithinTheBound() throws Exception {
        // a second prefix with topics but no gate: nothing ever answers
        createTopics(KAFKA.admin(), "http-proposals-it-nogate.", 1);
        ProposalsNode.publishPolicy(KAFKA.bootstrapServers(), "http-proposals-it-nogate."); // the task is the host's org's, or nothing is published
        Map<String, String> c = Map.of("bootstrap.servers", KAFKA.bootstrapServers(),
                "topic.prefix", "http-proposals-it-nogate.",
                "http.proposals.tokens.file", dir.resolve("hosts").toString(),
                "http.proposals.answer.timeout.ms", "500");
        try (ProposalApi api = ProposalApi.start(c).orElseThrow();
                GateHttpServer server = new GateHttpServer(HttpServerConfig.loopbackEphemeral(), new FakeStateQuery(),
                        new PrometheusRegistry(), () -> true).withProposals(api).start()) {
            Answer answer = send(server.port(), "POST", "/v1/proposals", HOST_TOKEN,
                    body("c-202", "ops@example.com").toString());
            assertThat(answer.status).isEqualTo(202);
            assertThat(answer.json.path("status").asText()).isEqualTo("PROPOSED");
            assertThat(answer.headers.firstValue("Location")).hasValue("/v1/actions/" + TASK + "/c-202");
            // the approval service's port is known once it started: the review URL follows it
            api.reviewOn(URI.create("http://localhost:4321/"));
            assertThat(api.reviewUrl(new ActionKey(TASK, "c-202"))).isEqualTo("http://localhost:4321/review/"
                    + ActionKey.format(TASK, "c-202"));
        }
        // the API is closed, its producer flushed: the topic holds all it will
        assertThat(readToEnd(KAFKA.bootstrapServers(), Topics.PROPOSALS.name("http-proposals-it-nogate."),
                Topics.PROPOSALS)).extracting(ActionProposal::getToolCallId).containsExactly("c-202");
    }

    @Test
    void shouldDropAClientThatSendsItsBodyTooSlowlyAndKeepAnswering() throws Exception {
        try (Socket slow = new Socket("127.0.0.1", port)) {
            OutputStream out = slow.getOutputStream();
            out.write(("POST /v1/proposals HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + HOST_TOKEN
                    + "\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"task_id\":")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            slow.setSoTimeout(30_000);
            long start = System.nanoTime();
            // meanwhile the server answers others
            assertThat(Http.get(port, "/health/live").statusCode()).isEqualTo(200);
            InputStream in = slow.getInputStream();
            // answered 408 at the body deadline (3 s here), then closed (readAllBytes returns at the close)
            String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(answer).startsWith("HTTP/1.1 408").contains("body_timeout");
            // the answer is one the OpenAPI document declares (408 was missing)
            String head = answer.substring(0, answer.indexOf("\r\n\r\n"));
            java.util.regex.Matcher type = java.util.regex.Pattern.compile("(?im)^content-type: *(.+)$").matcher(head);
            CONTRACT.checkResponse("POST", "/v1/proposals", 408, type.find() ? type.group(1).strip() : null,
                    answer.substring(head.length() + 4));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
        }
    }

    // ---- helpers ----

    record Answer(int status, JsonNode json, java.net.http.HttpHeaders headers) {
    }

    private static ObjectNode body(String call, String to) {
        ObjectNode p = JSON.createObjectNode();
        p.put("task_id", TASK);
        p.put("tool_call_id", call);
        p.put("provider", "webhook");
        p.put("operation", TOOL);
        p.put("tool_name", TOOL);
        p.put("tool_schema_hash", SCHEMA);
        ObjectNode input = p.putObject("input");
        input.put("to", to);
        input.put("body", "disk is full");
        p.put("summary", "Email " + to + " that the disk is full");
        p.put("idempotency_key", "idem-" + call);
        return p;
    }

    private static Answer propose(String token, ObjectNode body) {
        return post(token, body.toString());
    }

    private static Answer post(String token, String body) {
        return send(port, "POST", "/v1/proposals", token, body);
    }

    private static Answer get(String token, String pathAndQuery) {
        return send(port, "GET", pathAndQuery, token, null);
    }

    /** One exchange, its request and answer checked against the OpenAPI document. */
    private static Answer send(int port, String method, String pathAndQuery, String token, String body) {
        URI uri = URI.create("http://127.0.0.1:" + port + pathAndQuery.replace(" ", "%20"));
        if (body != null) {
            try {
                CONTRACT.checkRequest(method, uri.getRawPath(), uri.getRawQuery(), body);
            } catch (AssertionError expected) {
                // bad bodies are sent on purpose: the document describes them as refused
            }
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(90))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response;
        try {
            response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        String contentType = response.headers().firstValue("Content-Type").orElse(null);
        CONTRACT.checkResponse(method, uri.getRawPath(), response.statusCode(), contentType, response.body());
        try {
            return new Answer(response.statusCode(), JSON.readTree(response.body()), response.headers());
        } catch (IOException e) {
            throw new AssertionError(response.body(), e);
        }
    }
}
