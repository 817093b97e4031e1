package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

class GateHttpServerTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final FakeStateQuery query = new FakeStateQuery();
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final AtomicBoolean ready = new AtomicBoolean(false);
    private GateHttpServer server;
    private GateHttpServer other;

    @BeforeEach
    void start() {
        server = new GateHttpServer(HttpServerConfig.loopbackEphemeral(), query, registry, ready::get).start();
    }

    @AfterEach
    void stop() {
        server.close();
        if (other != null) {
            other.close();
        }
    }

    private static ObjectNode state(String status) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("task_id", "T-1");
        node.put("tool_call_id", "c-1");
        node.put("status", status);
        node.put("action_digest", "sha256:" + "a".repeat(64));
        return node;
    }

    @Test
    void shouldServeALocalActionAsJson() throws Exception {
        query.local.put("T-1/c-1", state("WAITING_APPROVAL"));

        HttpResponse<String> response = Http.get(server.port(), "/v1/actions/T-1/c-1");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        JsonNode body = MAPPER.readTree(response.body());
        assertThat(body.get("status").asText()).isEqualTo("WAITING_APPROVAL");
        assertThat(body.get("action_digest").asText()).startsWith("sha256:");
    }

    @Test
    void shouldNeverServeAnInputBodyEvenIfTheViewHoldsOne() throws Exception {
        ObjectNode leaky = state("APPROVED");
        leaky.put("input_json", "{\"to\":\"secret@example.org\"}");
        leaky.putObject("nested").putObject("input").put("password", "hunter2");
        query.local.put("T-1/c-1", leaky);

        HttpResponse<String> response = Http.get(server.port(), "/v1/actions/T-1/c-1");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).doesNotContain("input").doesNotContain("secret@example.org")
                .doesNotContain("hunter2").contains("APPROVED");
    }

    @Test
    void shouldAnswer404ForAnUnknownAction() {
        HttpResponse<String> response = Http.get(server.port(), "/v1/actions/T-1/nope");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).contains("not_found");
    }

    @Test
    void shouldAnswer400ForInvalidIdentifiers() {
        assertThat(Http.get(server.port(), "/v1/actions/T%201/c-1").statusCode()).isEqualTo(400);
        assertThat(Http.get(server.port(), "/v1/actions/T-1").statusCode()).isEqualTo(400);
        assertThat(Http.get(server.port(), "/v1/actions/T-1/c-1/extra").statusCode()).isEqualTo(400);
        assertThat(Http.get(server.port(), "/v1/actions/" + "x".repeat(129) + "/c").statusCode()).isEqualTo(400);
        assertThat(Http.get(server.port(), "/v1/actions/T-1/c-1").statusCode()).isEqualTo(404);
    }

    @Test
    void shouldAnswer503WhileTheStoreIsNotQueryable() {
        query.local.put("T-1/c-1", state("APPROVED"));
        query.storeUnavailable = true;

        assertThat(Http.get(server.port(), "/v1/actions/T-1/c-1").statusCode()).isEqualTo(503);

        query.storeUnavailable = false;
        query.routing = key -> new ActionStateQuery.Unavailable("rebalancing");
        assertThat(Http.get(server.port(), "/v1/actions/T-1/c-1").statusCode()).isEqualTo(503);
    }

    @Test
    void shouldAnswer500WhenTheViewFails() {
        query.routing = key -> {
            throw new IllegalStateException("view bug");
        };

        HttpResponse<String> response = Http.get(server.port(), "/v1/actions/T-1/c-1");

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).contains("internal").doesNotContain("view bug");
    }

    @Test
    void shouldRejectOtherMethods() {
        HttpResponse<String> response = Http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/v1/actions/T-1/c-1"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")));

        assertThat(response.statusCode()).isEqualTo(405);
    }

    @Test
    void shouldForwardToTheOwningInstanceAndRelayItsAnswer() throws Exception {
        FakeStateQuery owner = new FakeStateQuery();
        owner.local.put("T-1/c-1", state("SUCCEEDED"));
        other = new GateHttpServer(HttpServerConfig.loopbackEphemeral(), owner, new PrometheusRegistry(),
                () -> true).start();
        query.routing = key -> new ActionStateQuery.Remote("127.0.0.1", other.port());

        HttpResponse<String> found = Http.get(server.port(), "/v1/actions/T-1/c-1");
        HttpResponse<String> missing = Http.get(server.port(), "/v1/actions/T-1/c-2");

        assertThat(found.statusCode()).isEqualTo(200);
        assertThat(MAPPER.readTree(found.body()).get("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(missing.statusCode()).isEqualTo(404);
    }

    @Test
    void shouldNotForwardTwiceWhenTwoInstancesEachThinkTheOtherOwnsTheKey() {
        FakeStateQuery confused = new FakeStateQuery();
        other = new GateHttpServer(HttpServerConfig.loopbackEphemeral(), confused, new PrometheusRegistry(),
                () -> true).start();
        query.routing = key -> new ActionStateQuery.Remote("127.0.0.1", other.port());
        confused.routing = key -> new ActionStateQuery.Remote("127.0.0.1", server.port());

        HttpResponse<String> response = Http.get(server.port(), "/v1/actions/T-1/c-1");

        assertThat(response.statusCode()).isEqualTo(503);
    }

    @Test
    void shouldAnswer503WhenTheOwnerIsUnreachable() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        query.routing = key -> new ActionStateQuery.Remote("127.0.0.1", closedPort);

        assertThat(Http.get(server.port(), "/v1/actions/T-1/c-1").statusCode()).isEqualTo(503);
    }

    @Test
    void shouldExposeMetricsInPrometheusTextFormat() {
        GateMetrics metrics = new GateMetrics(registry);
        metrics.receipt("SUCCEEDED", null);
        metrics.approvalWait(Duration.ofSeconds(42));

        HttpResponse<String> response = Http.get(server.port(), "/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
        assertThat(response.body())
                .contains("actiongate_receipts_total{reason_code=\"none\",status=\"SUCCEEDED\"} 1")
                .contains("actiongate_approval_wait_seconds_count 1")
                .contains("# TYPE actiongate_unknown_outcomes_open gauge");
    }

    @Test
    void shouldBeLiveWhileRunning() {
        HttpResponse<String> response = Http.get(server.port(), "/health/live");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body().trim()).isEqualTo("live");
    }

    @Test
    void shouldBeReadyOnlyWhileTheCheckHolds() {
        HttpResponse<String> before = Http.get(server.port(), "/health/ready");
        ready.set(true);
        HttpResponse<String> during = Http.get(server.port(), "/health/ready");
        ready.set(false);
        HttpResponse<String> after = Http.get(server.port(), "/health/ready");

        assertThat(before.statusCode()).isEqualTo(503);
        assertThat(before.body().trim()).isEqualTo("unready");
        assertThat(during.statusCode()).isEqualTo(200);
        assertThat(during.body().trim()).isEqualTo("ready");
        assertThat(after.statusCode()).isEqualTo(503);
    }

    @Test
    void shouldTreatAFailingReadinessCheckAsNotReady() {
        other = new GateHttpServer(HttpServerConfig.loopbackEphemeral(), query, registry, () -> {
            throw new IllegalStateException("streams closed");
        }).start();

        assertThat(Http.get(other.port(), "/health/ready").statusCode()).isEqualTo(503);
    }

    @Test
    void shouldAnswer404ForUnknownPaths() {
        assertThat(Http.get(server.port(), "/health/other").statusCode()).isEqualTo(404);
        assertThat(Http.get(server.port(), "/metrics/x").statusCode()).isEqualTo(404);
        assertThat(Http.get(server.port(), "/").statusCode()).isEqualTo(404);
    }

    @Test
    void shouldStopServingOnClose() {
        int port = server.port();
        server.close();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Http.get(port, "/health/live"))
                .isInstanceOf(java.io.UncheckedIOException.class);
    }
}
