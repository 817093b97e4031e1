package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.key.ActionKey;

class NoticeMessagesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final Instant SINCE = Instant.parse("2026-01-01T00:00:00Z");

    static Notice notice(Stage stage, String summary, String reviewUrl, String tool) {
        ActionKey key = new ActionKey("T-1", "call-7");
        return new Notice(stage, Notice.id(stage, key, SINCE), key, "acme", "assistant", "webhook", tool, tool,
                summary, Instant.parse("2026-01-02T00:00:00Z"), reviewUrl);
    }

    static Notice notice(Stage stage, String summary) {
        return notice(stage, summary, "https://approve.acme.example/review/T-1/call-7", "send_email");
    }

    @Test
    void shouldWriteTheJsonWebhookBodyOfTheContractsWorkedExample() throws Exception {
        Path contract = Path.of("..", "docs", "contract.md");
        String doc = Files.readString(contract);
        Matcher example = Pattern.compile("<!-- example: notification-json -->\\n```json\\n(.*?)\\n```",
                Pattern.DOTALL).matcher(doc);
        assertThat(example.find()).as("docs/contract.md holds the notification-json example").isTrue();

        String body = NoticeMessages.json(notice(Stage.FIRST, "Tell ops that release 4.2 is live"));

        assertThat(body).isEqualTo(example.group(1));
    }

    @Test
    void shouldGiveSlackTheReviewUrlAsItsOnlyLinkAndNoButton() throws Exception {
        String hostile = "Pay now <https://evil.example|Review and decide> & <!channel>";
        JsonNode message = JSON.readTree(NoticeMessages.slack(notice(Stage.FIRST, hostile)));

        List<String> types = new ArrayList<>();
        message.get("blocks").forEach(b -> types.add(b.get("type").asText()));
        assertThat(types).containsExactly("section", "context");
        assertThat(message.toString()).doesNotContain("\"actions\"").doesNotContain("\"button\"")
                .doesNotContain("\"url\"");
        String text = message.get("blocks").get(0).get("text").get("text").asText();
        Matcher links = Pattern.compile("<([^>|]+)\\|").matcher(text);
        List<String> targets = new ArrayList<>();
        while (links.find()) {
            targets.add(links.group(1));
        }
        assertThat(targets).containsExactly("https://approve.acme.example/review/T-1/call-7");
        assertThat(text).contains("&lt;https://evil.example|Review and decide&gt; &amp; &lt;!channel&gt;")
                .contains("*Deadline:* 2026-01-02T00:00:00Z").contains("acme").contains("assistant");
        assertThat(message.get("text").asText()).contains("<https://approve.acme.example/review/T-1/call-7|");
    }

    @Test
    void shouldKeepTheEmailWithinTheSmtpConnectorsBoundsWithoutCuttingTheReviewUrl() {
        String url = "https://approve.acme.example/review/" + "T".repeat(128) + "/" + "c".repeat(128);
        Notice n = notice(Stage.REMINDER, "s".repeat(280), url, "upstream/" + "t".repeat(120));

        String subject = NoticeMessages.emailSubject(n);
        String body = NoticeMessages.emailBody(n);

        assertThat(subject.codePointCount(0, subject.length())).isLessThanOrEqualTo(NoticeMessages.MAX_SUBJECT);
        assertThat(subject).startsWith("Reminder: approval needed: ").endsWith(" (acme)").doesNotContain("\n");
        assertThat(body.codePointCount(0, body.length())).isLessThanOrEqualTo(NoticeMessages.MAX_BODY);
        assertThat(body).contains(url).contains("nothing in this message approves").contains("\u2026");
    }

    @Test
    void shouldWriteAShortEmailAsIs() {
        Notice n = notice(Stage.FIRST, "Tell ops that release 4.2 is live");

        assertThat(NoticeMessages.emailSubject(n)).isEqualTo("Approval needed: send_email (acme)");
        assertThat(NoticeMessages.emailBody(n)).contains("Tell ops that release 4.2 is live")
                .contains("Tool: send_email (webhook/send_email)").contains("Action: T-1/call-7")
                .contains("Deadline: 2026-01-02T00:00:00Z")
                .endsWith("https://approve.acme.example/review/T-1/call-7\n");
    }
}
