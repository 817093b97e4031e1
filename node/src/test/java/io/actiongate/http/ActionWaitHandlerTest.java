package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** The long poll on a server over an in-memory state, its answers checked against the OpenAPI document. */
class ActionWaitHandlerTest {

    private static final String PATH = "/v1/actions/T-1/c-1";
    private final FakeStateQuery state = new FakeStateQuery();
    private final OpenApiContract contract = new OpenApiContract();

    private GateHttpServer server(long maxWaitMs, int maxWaiters) {
        return server(maxWaitMs, maxWaiters, ReceiptFeed.NONE);
    }

    private GateHttpServer server(long maxWaitMs, int maxWaiters, ReceiptFeed feed) {
        return new GateHttpServer(HttpServerConfig.loopbackEphemeral(), state, new PrometheusRegistry(), () -> true)
                .withWaitLimits(new ProposalApiConfig(Map.of(ProposalApiConfig.MAX_WAIT_CONFIG, Long.toString(maxWaitMs),
                        ProposalApiConfig.MAX_WAITERS_CONFIG, Integer.toString(maxWaiters))))
                .withReceipts(feed).start();
    }

    /** A receipts consumer the test drives: {@link #receipt} is a committed receipt of that action read now. */
    private static final class FakeFeed implements ReceiptFeed {
        private final Map<String, java.util.List<Runnable>> watchers = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public AutoCloseable watch(String actionKey, Runnable wake) {
            watchers.computeIfAbsent(actionKey, k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(wake);
            return () -> watchers.get(actionKey).remove(wake);
        }

        void receipt(String actionKey) {
            watchers.getOrDefault(actionKey, java.util.List.of()).forEach(Runnable::run);
        }

        int open() {
            return watchers.values().stream().mapToInt(java.util.List::size).sum();
        }
    }

    private static void awaitWatchers(FakeFeed feed, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (feed.open() != count) {
            assertThat(System.nanoTime() - deadline).as("watchers: " + feed.open()).isNegative();
            Thread.sleep(10);
        }
    }

    @Test
    void shouldAnswerAsSoonAsTheStateIsTerminalAndNotBefore() throws Exception {
        state.local.put("T-1/c-1", view("WAITING_APPROVAL"));
        try (GateHttpServer server = server(60_000, 10)) {
            CompletableFuture<HttpResponse<String>> poll = CompletableFuture.supplyAsync(() -> get(server,
                    PATH + "?wait=20s&until=terminal"));
            Thread.sleep(300);
            state.local.put("T-1/c-1", view("APPROVED"));
            Thread.sleep(300);
            assertThat(poll).as("APPROVED is decided, not terminal").isNotDone();
            state.local.put("T-1/c-1", view("SUCCEEDED"));
            HttpResponse<String> answer = poll.get(5, TimeUnit.SECONDS);
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).contains("SUCCEEDED").doesNotContain("input_json").doesNotContain("secret");
        }
    }

    @Test
    void shouldReadTheStoreAgainWhenAReceiptOfTheActionArrivesAndNotOnATimer() throws Exception {
        FakeFeed feed = new FakeFeed();
        state.local.put("T-1/c-1", view("DISPATCHING"));
        try (GateHttpServer server = server(60_000, 10, feed)) {
            CompletableFuture<HttpResponse<String>> poll = CompletableFuture.supplyAsync(() -> get(server,
                    PATH + "?wait=20s&until=terminal"));
            awaitWatchers(feed, 1);
            state.local.put("T-1/c-1", view("SUCCEEDED"));
            Thread.sleep(10 * ActionWaitHandler.POLL_MS);
            assertThat(poll).as("no receipt yet: the store is not read again on a timer").isNotDone();
            feed.receipt("T-1/c-2");
            Thread.sleep(2 * ActionWaitHandler.POLL_MS);
            assertThat(poll).as("another action's receipt").isNotDone();

            feed.receipt("T-1/c-1");
            HttpResponse<String> answer = poll.get(5, TimeUnit.SECONDS);
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).contains("SUCCEEDED");
            awaitWatchers(feed, 0); // answered: it stopped watching
        }
    }

    @Test
    void shouldReadTheStoreOnATimerWhileItCannotBeQueriedEvenWithReceipts() throws Exception {
        FakeFeed feed = new FakeFeed();
        state.storeUnavailable = true;
        try (GateHttpServer server = server(60_000, 10, feed)) {
            CompletableFuture<HttpResponse<String>> poll = CompletableFuture.supplyAsync(() -> get(server,
                    PATH + "?wait=20s&until=terminal"));
            awaitWatchers(feed, 1);
            state.local.put("T-1/c-1", view("SUCCEEDED"));
            state.storeUnavailable = false; // the rebalance is over; no receipt tells
            assertThat(poll.get(5, TimeUnit.SECONDS).body()).contains("SUCCEEDED");
        }
    }

    @Test
    void shouldCutAWaitToTheConfiguredMaximumAndAnswerTheStateAsItIs() {
        state.local.put("T-1/c-1", view("WAITING_APPROVAL"));
        try (GateHttpServer server = server(300, 10)) {
            long start = System.nanoTime();
            HttpResponse<String> answer = get(server, PATH + "?wait=10m&until=decided");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).contains("WAITING_APPROVAL");
        }
    }

    @Test
    void shouldRefuseAWaitPastTheLimitOfWaitersAtOnce() throws Exception {
        FakeFeed feed = new FakeFeed();
        try (GateHttpServer server = server(60_000, 1, feed)) {
            CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> get(server,
                    PATH + "?wait=30s"));
            awaitWatchers(feed, 1); // the first holds the one slot (taken before it watches), however slow the machine
            HttpResponse<String> second = get(server, PATH + "?wait=2s");
            assertThat(second.statusCode()).isEqualTo(503);
            // the first is answered as any wait is, once its action settles
            state.local.put("T-1/c-1", view("SUCCEEDED"));
            feed.receipt("T-1/c-1");
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            state.local.remove("T-1/c-1");
            assertThat(get(server, PATH + "?wait=0s").statusCode()).as("the slot was given back").isEqualTo(404);
        }
    }

    @Test
    void shouldAnswer400ForAnInvalidWaitOrUntil() {
        try (GateHttpServer server = server(5_000, 10)) {
            assertThat(get(server, PATH + "?wait=soon").statusCode()).isEqualTo(400);
            assertThat(get(server, PATH + "?wait=1s&until=eventually").statusCode()).isEqualTo(400);
        }
    }

    private HttpResponse<String> get(GateHttpServer server, String pathAndQuery) {
        HttpResponse<String> response = Http.get(server.port(), pathAndQuery);
        java.net.URI uri = java.net.URI.create(pathAndQuery);
        contract.checkResponse("GET", uri.getRawPath(), response.statusCode(),
                response.headers().firstValue("Content-Type").orElse(null), response.body());
        return response;
    }

    private static ObjectNode view(String status) {
        ObjectNode node = HttpJson.MAPPER.createObjectNode();
        node.put("task_id", "T-1");
        node.put("tool_call_id", "c-1");
        node.put("status", status);
        node.put("tool_name", "send_email");
        node.put("provider", "webhook");
        node.put("operation", "send_email");
        node.putArray("attempts");
        node.put("updated_at", "2026-12-01T20:00:00Z");
        node.put("input_json", "{\"secret\":1}");
        return node;
    }
}
