package io.actiongate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.sandbox.SandboxWebhookProvider.Fault;

class SandboxWebhookProviderTest {

    private final SandboxWebhookProvider sandbox = SandboxWebhookProvider.start();
    private final HttpClient client = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        sandbox.close();
    }

    private HttpResponse<String> post(String key) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(sandbox.baseUri().resolve("/send_email"))
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"to\":\"a@example.com\"}"));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> lookup(String key) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(sandbox.baseUri().resolve("/idempotency/" + key)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldApplyOneEffectPerIdempotencyKeyAndAnswerTheSameIdAgain() throws Exception {
        HttpResponse<String> first = post("k-1");
        HttpResponse<String> second = post("k-1");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(second.body()).isEqualTo(first.body()).contains(sandbox.effect("k-1").id());
        assertThat(sandbox.requests("k-1")).isEqualTo(2);
        assertThat(sandbox.requestTimes("k-1")).hasSize(2).isSorted();
        assertThat(sandbox.effects("k-1")).isEqualTo(1);
        assertThat(sandbox.baseUri().getHost()).isEqualTo("127.0.0.1");
    }

    @Test
    void shouldHoldEveryEffectRequestForTheConfiguredServiceTimeAndRejectANegativeOne() throws Exception {
        sandbox.latency(java.time.Duration.ofMillis(300));
        long start = System.nanoTime();

        assertThat(post("k-slow").statusCode()).isEqualTo(200);

        // a lower bound only: the sleep guarantees it, whatever the machine's load
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(300_000_000L);
        assertThat(sandbox.effects("k-slow")).isEqualTo(1);
        assertThatThrownBy(() -> sandbox.latency(java.time.Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldCountEveryPostThatReachedTheApplyStepButNotOnesRefusedBeforeApplying() throws Exception {
        sandbox.program(Fault.rateLimit("k-1", 1, "1"));
        sandbox.program(Fault.dropBeforeApply("k-1"));
        assertThat(post("k-1").statusCode()).isEqualTo(429);
        assertThatThrownBy(() -> post("k-1")).isInstanceOf(IOException.class);
        assertThat(sandbox.appliedRequests("k-1")).isZero();

        sandbox.program(Fault.errorAfterApply("k-1"));
        assertThat(post("k-1").statusCode()).isEqualTo(500);
        assertThat(post("k-1").statusCode()).isEqualTo(200);

        // a provider without an idempotency store would have applied both; this one applied one effect
        assertThat(sandbox.appliedRequests("k-1")).isEqualTo(2);
        assertThat(sandbox.effects("k-1")).isEqualTo(1);
        assertThat(sandbox.requests("k-1")).isEqualTo(4);
        assertThat(sandbox.appliedRequests("k-2")).isZero();
    }

    @Test
    void shouldAnswerADispatchInTheDocumentedShapeSoTheWebhookConnectorCallsItSucceeded() throws Exception {
        assertThat(post("k-0").body()).contains("\"status\":\"applied\"");
        try (ConnectorRegistry registry = ConnectorRegistry.load(Map.of(
                "connectors.webhook.base-url", sandbox.baseUri().toString(),
                "connectors.webhook.operations", "send_email"))) {
            Connector webhook = registry.find("webhook").orElseThrow();

            DispatchResult result = webhook.dispatch(new DispatchRequest("T-1", "C-1", 1, "k-1", "demo", "webhook",
                    "send_email", "send_email", "{\"to\":\"a@example.com\"}", List.of(),
                    Instant.now().plusSeconds(60)));

            assertThat(result.status()).isEqualTo(DispatchResult.Status.SUCCEEDED);
            assertThat(result.providerReceiptId()).isEqualTo(sandbox.effect("k-1").id());
        }
    }

    @Test
    void shouldAnswerLookupsWithAppliedOrNotFound() throws Exception {
        post("k-1");
        assertThat(lookup("k-1").statusCode()).isEqualTo(200);
        assertThat(lookup("k-1").body()).contains("\"status\":\"applied\"").contains(sandbox.effect("k-1").id());
        assertThat(lookup("k-2").statusCode()).isEqualTo(404);
    }

    @Test
    void shouldAnswerProgrammedLookupsWith500WithoutConsumingThemOnPosts() throws Exception {
        sandbox.program(Fault.lookupError("k-1", 2));
        assertThat(post("k-1").statusCode()).isEqualTo(200);

        assertThat(lookup("k-1").statusCode()).isEqualTo(500);
        assertThat(lookup("k-1").statusCode()).isEqualTo(500);
        assertThat(lookup("k-1").statusCode()).isEqualTo(200);
        assertThat(sandbox.effects("k-1")).isEqualTo(1);
        assertThat(sandbox.lookups()).isEqualTo(3);
        assertThat(sandbox.lookups("k-1")).isEqualTo(3);
        assertThat(sandbox.lookups("k-2")).isZero();
    }

    @Test
    void shouldRejectAPostWithoutIdempotencyKey() throws Exception {
        assertThat(post(null).statusCode()).isEqualTo(400);
        assertThat(sandbox.effectCount()).isZero();
    }

    @Test
    void shouldRateLimitTheProgrammedNumberOfTimesWithoutApplying() throws Exception {
        sandbox.program(Fault.rateLimit("k-1", 2, "2"));

        HttpResponse<String> limited = post("k-1");
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.headers().firstValue("Retry-After")).contains("2");
        assertThat(post("k-1").statusCode()).isEqualTo(429);
        assertThat(sandbox.effects("k-1")).isZero();
        assertThat(post("k-1").statusCode()).isEqualTo(200);
        assertThat(sandbox.effects("k-1")).isEqualTo(1);
    }

    @Test
    void shouldApplyAndThenFailOrDropWhenProgrammedTo() throws Exception {
        sandbox.program(Fault.errorAfterApply("k-500"));
        sandbox.program(Fault.dropAfterApply("k-drop"));
        sandbox.program(Fault.dropBeforeApply("k-drop-early"));

        assertThat(post("k-500").statusCode()).isEqualTo(500);
        assertThatThrownBy(() -> post("k-drop")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> post("k-drop-early")).isInstanceOf(IOException.class);

        assertThat(sandbox.effects("k-500")).isEqualTo(1);
        assertThat(sandbox.effects("k-drop")).isEqualTo(1);
        assertThat(sandbox.effects("k-drop-early")).isZero();
    }

    @Test
    void shouldDelayTheAnswerAfterApplying() {
        sandbox.program(Fault.delayAfterApply("k-slow", Duration.ofSeconds(2)));
        HttpRequest request = HttpRequest.newBuilder(sandbox.baseUri().resolve("/send_email"))
                .timeout(Duration.ofMillis(300)).header("Idempotency-Key", "k-slow")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build();

        assertThatThrownBy(() -> client.send(request, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(java.net.http.HttpTimeoutException.class);
        assertThat(sandbox.effects("k-slow")).isEqualTo(1);
    }

    @Test
    void shouldHoldARequestUntilReleased() throws Exception {
        sandbox.program(Fault.holdBeforeApply("k-held", Duration.ofSeconds(10)));
        var pending = client.sendAsync(HttpRequest.newBuilder(sandbox.baseUri().resolve("/send_email"))
                .header("Idempotency-Key", "k-held").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
        Thread.sleep(200);
        assertThat(sandbox.effects("k-held")).isZero();

        sandbox.releaseHeld();

        assertThat(pending.get().statusCode()).isEqualTo(200);
        assertThat(sandbox.effects("k-held")).isEqualTo(1);
    }
}
