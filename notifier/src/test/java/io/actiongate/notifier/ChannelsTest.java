package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.policy.NotificationRoutes;

/** The destinations a route turns into, and what goes over the wire to a webhook. */
class ChannelsTest {

    @TempDir
    Path dir;
    RecordingWebhook hooks;
    Channels channels;

    @BeforeEach
    void start() throws Exception {
        hooks = new RecordingWebhook();
        Map<String, String> c = new HashMap<>();
        c.put(NotifierConfig.REVIEW_URL, "https://approve.acme.example/review/{task_id}/{tool_call_id}");
        c.put("notifier.slack.ops.url", "file:" + Files.writeString(dir.resolve("ops"),
                hooks.url("/services/T/B/ops").toString()));
        c.put("notifier.webhook.pager.url", hooks.url("/pager").toString());
        c.put("notifier.webhook.pager.credential", "file:" + Files.writeString(dir.resolve("pager"), "pager-token"));
        // email configured, never reached here: routes are checked against allowed-domains before any claim
        c.put("notifier.smtp.host", "127.0.0.1");
        c.put("notifier.smtp.port", "9");
        c.put("notifier.smtp.from", "actiongate@acme.example");
        c.put("notifier.smtp.allowed-domains", "acme.example");
        channels = Channels.of(NotifierConfig.from(c, Map.of()));
    }

    @AfterEach
    void stop() {
        channels.close();
        hooks.close();
    }

    private static NotificationRoutes.Route route(List<String> slack, List<String> json, List<String> emails) {
        return new NotificationRoutes.Route("notify:acme:*:*", emails, slack, json, Optional.empty());
    }

    @Test
    void shouldLeaveOutWhatThisNotifierCannotSendTo() {
        List<Channels.Target> targets = channels.targets(route(List.of("ops", "unknown"), List.of("pager", "nope"),
                List.of("alice@acme.example", "mallory@elsewhere.example", "Bob <bob@acme.example>")));

        assertThat(targets).extracting(t -> t.channel() + ":" + t.name())
                .containsExactly("slack:ops", "webhook:pager", "email:emails[0]");
    }

    @Test
    void shouldPostTheNoticeWithItsIdempotencyKeyAndCredentialToAJsonWebhook() {
        Notice n = NoticeMessagesTest.notice(Stage.FIRST, "Tell ops that release 4.2 is live");
        List<Channels.Target> targets = channels.targets(route(List.of("ops"), List.of("pager"), List.of()));

        assertThat(targets).allSatisfy(t -> assertThat(t.send().apply(n)).isEqualTo(Delivery.DELIVERED));

        RecordingWebhook.Post slack = hooks.posts().get(0);
        assertThat(slack.path()).isEqualTo("/services/T/B/ops");
        assertThat(slack.body()).isEqualTo(NoticeMessages.slack(n));
        RecordingWebhook.Post pager = hooks.posts().get(1);
        assertThat(pager.body()).isEqualTo(NoticeMessages.json(n));
        assertThat(pager.headers().get("Idempotency-key")).containsExactly(n.id());
        assertThat(pager.headers().get("Authorization")).containsExactly("Bearer pager-token");
        assertThat(slack.headers()).doesNotContainKey("Authorization");
    }

    @Test
    void shouldTellWhatAnAnswerMeansForTheMessage() throws Exception {
        HttpPoster poster = new HttpPoster(Duration.ofSeconds(2), Duration.ofSeconds(5));
        hooks.answer(404);
        assertThat(poster.post(hooks.url("/x"), "{}", Map.of())).isEqualTo(Delivery.REFUSED);
        hooks.answer(500);
        assertThat(poster.post(hooks.url("/x"), "{}", Map.of())).isEqualTo(Delivery.UNKNOWN);
        hooks.answer(302);
        assertThat(poster.post(hooks.url("/x"), "{}", Map.of())).isEqualTo(Delivery.UNKNOWN);
        java.net.URI closed;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = java.net.URI.create("http://127.0.0.1:" + free.getLocalPort() + "/x");
        }
        assertThat(poster.post(closed, "{}", Map.of())).isEqualTo(Delivery.NOT_SENT);
    }
}
