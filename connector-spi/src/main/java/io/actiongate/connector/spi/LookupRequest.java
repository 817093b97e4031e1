package io.actiongate.connector.spi;

/**
 * What the reconciler knows about an unknown outcome. {@code inputJson} is present for connectors whose
 * lookup has to match content (the posted text, say); it may be null.
 */
public record LookupRequest(
        String taskId,
        String toolCallId,
        int attempt,
        String idempotencyKey,
        String orgId,
        String provider,
        String operation,
        String inputJson) {

    /** {@code task_id/tool_call_id}. */
    public String actionKey() {
        return DispatchRequest.actionKey(taskId, toolCallId);
    }
}
