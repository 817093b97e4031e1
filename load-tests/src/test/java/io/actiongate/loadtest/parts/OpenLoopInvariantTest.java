package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.gate.IdempotencyKeys;
import io.actiongate.sandbox.SandboxWebhookProvider;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.Workload;
import io.actiongate.loadtest.report.Invariant;

/** The per-key provider check of the open-loop and approval rows fails on a doubled or a lost request. */
class OpenLoopInvariantTest {

    @TempDir
    Path stateDir;

    @Test
    void shouldFailWhenAKeyReachedTheProviderTwiceOrNever() throws Exception {
        String doubled = "T-1/c-1";
        String lost = "T-1/c-2";
        String once = "T-1/c-3";
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start();
             BenchContext ctx = new BenchContext(BenchOptions.defaults(), stateDir,
                     new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Progress.off())) {
            post(provider, doubled);
            post(provider, doubled);
            post(provider, once);

            OpenLoopPart.oneRequestEach(ctx, provider, "row x", List.of(once));
            OpenLoopPart.oneRequestEach(ctx, provider, "row y", List.of(once, doubled));
            OpenLoopPart.oneRequestEach(ctx, provider, "row z", List.of(once, lost));

            assertThat(ctx.invariants()).extracting(Invariant::held).containsExactly(true, false, false);
            assertThat(ctx.invariants().get(1).detail()).contains("1 of 2", doubled + " had 2");
            assertThat(ctx.invariants().get(2).detail()).contains(lost + " had 0");
        }
    }

    private static void post(SandboxWebhookProvider provider, String actionKey) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(provider.baseUri() + "/" + Workload.READ_TOOL))
                .header("Idempotency-Key", IdempotencyKeys.derived(actionKey))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isLessThan(500);
    }
}
