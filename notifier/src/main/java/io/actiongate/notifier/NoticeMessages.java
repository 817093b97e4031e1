package io.actiongate.notifier;

import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The three forms of a {@link Notice} (docs/contract.md section 7, "Reviewers are told"): a Slack-compatible incoming
 * webhook's message (a link only: no {@code actions} block, every value escaped), the generic JSON webhook's object,
 * and an email within the smtp connector's bounds (subject 80, body 600 code points; the review URL never cut).
 */
final class NoticeMessages {

    /** The JSON webhook's {@code type}. */
    static final String TYPE = "actiongate.approval.waiting";
    static final int MAX_SUBJECT = 80;
    static final int MAX_BODY = 600;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NOTHING_DECIDES = "nothing in this message approves";

    private NoticeMessages() {
    }

    /** The generic JSON webhook's body: one object, members in the contract's order. */
    static String json(Notice n) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", TYPE);
        body.put("stage", n.stage().id());
        body.put("notification_id", n.id());
        body.put("action_key", n.action().toString());
        body.put("task_id", n.action().taskId());
        body.put("tool_call_id", n.action().toolCallId());
        body.put("org_id", n.orgId());
        body.put("profile_id", n.profileId());
        body.put("provider", n.provider());
        body.put("operation", n.operation());
        body.put("tool_name", n.toolName());
        body.put("summary", n.summary());
        body.put("deadline", DateTimeFormatter.ISO_INSTANT.format(n.deadline()));
        body.put("review_url", n.reviewUrl());
        return write(body);
    }

    /** A Slack-compatible incoming webhook's message: the review URL is its only link. */
    static String slack(Notice n) {
        String link = "<" + slackEscape(n.reviewUrl()) + "|Review and decide>";
        String headline = n.stage() == Stage.REMINDER ? "*Reminder: approval needed*" : "*Approval needed*";
        String text = headline + ": " + slackEscape(n.toolName()) + " (" + slackEscape(n.orgId()) + ")\n"
                + "*Tool:* " + slackEscape(n.toolName()) + " (" + slackEscape(n.provider()) + "/"
                + slackEscape(n.operation()) + ")\n"
                + "*Org:* " + slackEscape(n.orgId()) + "   *Profile:* " + slackEscape(n.profileId()) + "\n"
                + "*Deadline:* " + DateTimeFormatter.ISO_INSTANT.format(n.deadline()) + "\n"
                + "*Summary* (the assistant's own words, not verified): " + slackEscape(n.summary()) + "\n"
                + link;
        Map<String, Object> section = Map.of("type", "section", "text", Map.of("type", "mrkdwn", "text", text));
        Map<String, Object> context = Map.of("type", "context", "elements", List.of(Map.of("type", "mrkdwn",
                "text", slackEscape(n.action().toString()) + ": sign in and decide on the review page; "
                        + NOTHING_DECIDES)));
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("text", (n.stage() == Stage.REMINDER ? "Reminder: approval needed: " : "Approval needed: ")
                + slackEscape(n.toolName()) + " (" + slackEscape(n.orgId()) + ") " + link);
        message.put("blocks", List.of(section, context));
        return write(message);
    }

    /** The email's subject: one line, at most {@value #MAX_SUBJECT} code points. */
    static String emailSubject(Notice n) {
        String prefix = n.stage() == Stage.REMINDER ? "Reminder: approval needed: " : "Approval needed: ";
        String org = " (" + n.orgId() + ")";
        String tool = n.toolName();
        int room = MAX_SUBJECT - prefix.length() - org.length();
        if (room < 8) {
            return cut(prefix + tool, MAX_SUBJECT);
        }
        return prefix + cut(tool, room) + org;
    }

    /**
     * The email's plain-text body, at most {@value #MAX_BODY} code points. When the action's fields are long, the
     * summary is shortened first, then the action line goes (the review URL names the action too), then the tool and
     * org lines are shortened; the review URL is never cut.
     */
    static String emailBody(Notice n) {
        String summary = n.summary();
        String tool = n.toolName() + " (" + n.provider() + "/" + n.operation() + ")";
        String org = n.orgId() + ", profile " + n.profileId();
        boolean actionLine = true;
        String body = emailBody(n, tool, org, actionLine, summary);
        for (int step = 0; length(body) > MAX_BODY && step < 4; step++) {
            int over = length(body) - MAX_BODY;
            switch (step) {
                case 0 -> summary = cut(summary, Math.max(1, length(summary) - over));
                case 1 -> actionLine = false;
                case 2 -> tool = cut(tool, Math.max(16, length(tool) - over));
                default -> org = cut(org, Math.max(16, length(org) - over));
            }
            body = emailBody(n, tool, org, actionLine, summary);
        }
        return body;
    }

    private static String emailBody(Notice n, String tool, String org, boolean actionLine, String summary) {
        return (n.stage() == Stage.REMINDER ? "Reminder: an action still waits for your approval; its deadline is near."
                : "An action waits for your approval on actiongate.") + "\n\n"
                + "Tool: " + tool + "\n"
                + "Org: " + org + "\n"
                + (actionLine ? "Action: " + n.action() + "\n" : "")
                + "Deadline: " + DateTimeFormatter.ISO_INSTANT.format(n.deadline()) + "\n\n"
                + "Summary, the assistant's own words (not verified):\n" + summary + "\n\n"
                + "Review and decide on the review page (sign in and step up there; " + NOTHING_DECIDES + "):\n"
                + n.reviewUrl() + "\n";
    }

    /** Slack's three control characters of mrkdwn: {@code <} and {@code >} would start a link or a mention. */
    static String slackEscape(String s) {
        return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static int length(String s) {
        return s.codePointCount(0, s.length());
    }

    /** {@code s} cut to at most {@code max} code points, with an ellipsis when cut. */
    static String cut(String s, int max) {
        if (length(s) <= max) {
            return s;
        }
        if (max <= 0) {
            return "";
        }
        return s.substring(0, s.offsetByCodePoints(0, max - 1)) + "\u2026";
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a notice did not serialise", e);
        }
    }
}
