package io.actiongate.storage;

import io.actiongate.key.ActionKey;

/**
 * An attachment is owned by one tool invocation, the action {@code task_id/tool_call_id} it is proposed with.
 * Its object key starts with the invocation's prefix, so the store can list and delete everything an
 * invocation staged without any index, and a key from another invocation is refused by its shape alone.
 */
public final class Invocations {

    private Invocations() {
    }

    /** The owner id recorded with each object: the action key. */
    public static String ownerId(String taskId, String toolCallId) {
        return new ActionKey(taskId, toolCallId).toString();
    }

    /** {@code {keyPrefix}{task_id}/{tool_call_id}/}: every object the invocation staged lives below it. */
    public static String keyPrefix(String keyPrefix, String ownerInvocationId) {
        ActionKey key = ActionKey.parse(ownerInvocationId);
        return keyPrefix + key + "/";
    }
}
