package io.actiongate.notifier;

import java.time.Instant;

import io.actiongate.key.ActionKey;

/**
 * One notice as it is sent: only what a reviewer needs to find the action and decide whether to open it. The summary
 * is already cleaned ({@link SummaryText}); nothing here is the input, an attachment, a path or a credential.
 *
 * @param id        {@code {stage}/{task_id}/{tool_call_id}/{waiting since ms}}: unique per action, waiting period and
 *                  stage, the key of its claim and the JSON webhook's {@code Idempotency-Key}
 * @param reviewUrl the review page of the action, from the notifier's configuration (never from the action)
 */
public record Notice(Stage stage, String id, ActionKey action, String orgId, String profileId, String provider,
                     String operation, String toolName, String summary, Instant deadline, String reviewUrl) {

    /** The notice id of {@code stage} for the waiting period of {@code action} that began at {@code since}. */
    public static String id(Stage stage, ActionKey action, Instant since) {
        return stage.id() + "/" + ActionKey.format(action.taskId(), action.toolCallId()) + "/" + since.toEpochMilli();
    }
}
