package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NotifierConfigTest {

    static final String SLACK_URL = "https://hooks.slack.com/services/T000/B000/abcdefghijklmnopqrstuvwx";

    @TempDir
    Path dir;

    private static Map<String, String> base() {
        Map<String, String> c = new HashMap<>();
        c.put("approver.public.url", "https://approve.acme.example");
        return c;
    }

    @Test
    void shouldLinkTheApproversReviewPagesAndWaitAsLongAsTheGate() {
        Map<String, String> c = base();
        c.put("gate.approval.timeout", "2h");

        NotifierConfig config = NotifierConfig.from(c, Map.of());

        assertThat(config.reviewPage("T-1", "call-7")).isEqualTo("https://approve.acme.example/review/T-1/call-7");
        assertThat(config.approvalWait()).isEqualTo(Duration.ofHours(2));
        assertThat(config.reminderBefore()).isEqualTo(Duration.ofHours(1));
        assertThat(config.stateTopic()).isEqualTo("actiongate.notifier-state");
        assertThat(config.email()).isEmpty();
    }

    @Test
    void shouldRefuseAConfigurationWithoutAReviewPageOrWithAPlainHttpOne() {
        assertThatThrownBy(() -> NotifierConfig.from(Map.of(), Map.of()))
                .hasMessageContaining("notifier.review.url or approver.public.url must be set");
        Map<String, String> c = base();
        c.put(NotifierConfig.REVIEW_URL, "http://approve.acme.example/review/{task_id}/{tool_call_id}");
        assertThatThrownBy(() -> NotifierConfig.from(c, Map.of())).hasMessageContaining("must be https");
        c.put(NotifierConfig.REVIEW_URL, "https://approve.acme.example/queue");
        assertThatThrownBy(() -> NotifierConfig.from(c, Map.of())).hasMessageContaining("{task_id}");
    }

    @Test
    void shouldTakeASlackWebhooksUrlOnlyByReferenceAndNeverShowIt() throws Exception {
        Map<String, String> c = base();
        c.put("notifier.slack.ops.url", SLACK_URL);
        assertThatThrownBy(() -> NotifierConfig.from(c, Map.of()))
                .hasMessageContaining("notifier.slack.ops.url must be a secret reference")
                .hasMessageNotContaining("hooks.slack.com");

        Path secret = Files.writeString(dir.resolve("slack-ops"), SLACK_URL + "\n");
        c.put("notifier.slack.ops.url", "file:" + secret);
        c.put("notifier.slack.team.url", "env:SLACK_TEAM");
        NotifierConfig config = NotifierConfig.from(c, Map.of("SLACK_TEAM", SLACK_URL + "x"));

        assertThat(config.slack().get("ops").url().toString()).isEqualTo(SLACK_URL);
        assertThat(config.slack()).containsKeys("ops", "team");
        assertThat(config.toString() + config.slack()).doesNotContain("hooks.slack.com");
    }

    @Test
    void shouldReadAJsonWebhookWithItsCredentialHeader() throws Exception {
        Map<String, String> c = base();
        Path token = Files.writeString(dir.resolve("pager-token"), "tok-0123456789\n");
        c.put("notifier.webhook.pager.url", "https://pager.acme.example/hooks/actiongate");
        c.put("notifier.webhook.pager.credential", "file:" + token);
        c.put("notifier.webhook.audit.url", "http://127.0.0.1:9999/in");
        c.put("notifier.webhook.audit.credential", "env:AUDIT_KEY");
        c.put("notifier.webhook.audit.credential-header", "X-Api-Key");

        NotifierConfig config = NotifierConfig.from(c, Map.of("AUDIT_KEY", "k-1"));

        assertThat(config.webhooks().get("pager").credentialHeader()).isEqualTo("Authorization");
        assertThat(config.webhooks().get("pager").credentialValue()).isEqualTo("Bearer tok-0123456789");
        assertThat(config.webhooks().get("audit").credentialValue()).isEqualTo("k-1");
        assertThat(config.webhooks().toString()).doesNotContain("tok-0123456789").doesNotContain("k-1");
    }

    @Test
    void shouldRefuseBadDestinations() {
        Map<String, String> c = base();
        c.put("notifier.webhook.pager.url", "http://pager.acme.example/in");
        assertThatThrownBy(() -> NotifierConfig.from(c, Map.of())).hasMessageContaining("must be https");
        c.put("notifier.webhook.pager.url", "https://pager.acme.example/in");
        c.put("notifier.webhook.pager.credential", "inline-secret");
        assertThatThrownBy(() -> NotifierConfig.from(c, Map.of()))
                .hasMessageContaining("notifier.webhook.pager.credential must be a secret reference");
        c.remove("notifier.webhook.pager.credential");
        c.put("notifier.webhook.pager.token", "x");
        assertThatThrownBy(() -> NotifierConfig.from(c, Map.of()))
                .hasMessageContaining("notifier.webhook.pager.token is not a setting");
        c.remove("notifier.webhook.pager.token");
        c.put("notifier.webhook.bad name.url", "https://x.example");
        assertThatThrownBy(() -> NotifierConfig.from(c, Map.of())).hasMessageContaining("<name>");
    }

    @Test
    void shouldRefuseEmailWithoutAHostAndAStateRetentionShorterThanTheWait() {
        Map<String, String> c = base();
        c.put("notifier.smtp.from", "actiongate@acme.example");
        assertThatThrownBy(() -> NotifierConfig.from(c, Map.of())).hasMessageContaining("notifier.smtp.host");
        c.remove("notifier.smtp.from");
        c.put("gate.approval.timeout", "8d");
        assertThatThrownBy(() -> NotifierConfig.from(c, Map.of()))
                .hasMessageContaining("notifier.state.retention");
        c.put(NotifierConfig.STATE_RETENTION, "9d");
        assertThat(NotifierConfig.from(c, Map.of()).stateRetention()).isEqualTo(Duration.ofDays(9));
    }

    @Test
    void shouldNoticeAReviewPageOnPortZero() {
        Map<String, String> c = new HashMap<>();
        c.put("approver.public.url", "http://localhost:0");
        NotifierConfig config = NotifierConfig.from(c, Map.of());

        assertThat(config.reviewUrlUnbound()).isTrue();
        assertThat(config.withReviewUrl(NotifierConfig.reviewUrlOf(java.net.URI.create("http://localhost:8443")))
                .reviewUrlUnbound()).isFalse();
        assertThatThrownBy(() -> NotifierService.start(config, null, java.time.Clock.systemUTC()))
                .hasMessageContaining("port 0");
    }
}
