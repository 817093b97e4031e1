package io.actiongate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

class SandboxChatWebhookTest {

    private static HttpResponse<String> post(SandboxChatWebhook hook, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(hook.url())
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldAnswerAMessageAsSlackDoesAndKeepIt() throws Exception {
        try (SandboxChatWebhook hook = SandboxChatWebhook.start()) {
            HttpResponse<String> ok = post(hook, "{\"text\":\"Approval needed <https://x.example/r|Review>\"}");
            HttpResponse<String> bad = post(hook, "{\"blocks\":[]}");
            HttpResponse<String> notJson = post(hook, "text=hello");

            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("ok");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(notJson.body()).isEqualTo("invalid_payload");
            assertThat(hook.messages()).singleElement().asString().contains("https://x.example/r");
            assertThat(hook.url().getPath()).isEqualTo(SandboxChatWebhook.PATH);
        }
    }
}
