package io.actiongate.connector.spi;

import java.time.Instant;
import java.util.List;

/**
 * One reserved attempt, as the executor hands it to a connector. {@code actionDigest} is the frozen action's digest
 * (what a human approved); {@code decisionId}, {@code approvedBy} and {@code summary} are the approval's metadata when
 * the reservation carries them, else null (a reservation written before {@code AttemptReservation} v2 does not).
 */
public record DispatchRequest(
        String taskId,
        String toolCallId,
        int attempt,
        String idempotencyKey,
        String orgId,
        String provider,
        String operation,
        String toolName,
        String inputJson,
        List<Attachment> attachments,
        Instant leaseExpiresAt,
        String actionDigest,
        String decisionId,
        String approvedBy,
        String summary) {

    public DispatchRequest {
        attachments = attachments == null ? List.of() : List.copyOf(attachments);
    }

    /** A request without the action's digest and approval metadata. */
    public DispatchRequest(String taskId, String toolCallId, int attempt, String idempotencyKey, String orgId,
            String provider, String operation, String toolName, String inputJson, List<Attachment> attachments,
            Instant leaseExpiresAt) {
        this(taskId, toolCallId, attempt, idempotencyKey, orgId, provider, operation, toolName, inputJson, attachments,
                leaseExpiresAt, null, null, null, null);
    }

    /** {@code task_id/tool_call_id}, the value of the {@code X-ActionGate-Action} header. */
    public String actionKey() {
        return actionKey(taskId, toolCallId);
    }

    /**
     * The action key of two ids, as {@code io.actiongate.key.ActionKey} writes it: the connectors depend on no
     * schema module, so this is their one place that joins the ids.
     */
    public static String actionKey(String taskId, String toolCallId) {
        return taskId + "/" + toolCallId;
    }
}
