package io.actiongate.storage;

import java.util.List;

/**
 * The executor's last check of a reservation, right before a connector sees it: attachments read and verified
 * into memory, and the live tool schema hash compared. Implementations are thread-safe (the dispatch pool calls
 * them concurrently) and never throw: every problem is a {@link Refuse}.
 */
public interface PreDispatchCheck {

    /**
     * Without object storage nothing with attachments is dispatched; everything else proceeds unchanged.
     */
    PreDispatchCheck WITHOUT_STORAGE = request -> request.attachments().isEmpty()
            ? new Proceed(List.of())
            : new Refuse("ATTACHMENT_INVALID", "attachments need object storage, and none is configured", false);

    Result check(Request request);

    /** What the check needs of a reservation (no Avro types past the serde edge). */
    record Request(String taskId, String toolCallId, String provider, String toolName, String toolSchemaHash,
                   List<AttachmentRef> attachments) {
        public Request {
            attachments = List.copyOf(attachments);
        }

        public String invocationId() {
            return Invocations.ownerId(taskId, toolCallId);
        }
    }

    sealed interface Result {
    }

    /** Dispatch, with these verified bytes (in the reservation's order). */
    record Proceed(List<Verification.LoadedAttachment> attachments) implements Result {
        public Proceed {
            attachments = List.copyOf(attachments);
        }
    }

    /**
     * Do not dispatch. {@code errorCode} is a reason code ({@code ATTACHMENT_INVALID}, {@code TOOL_SCHEMA_CHANGED})
     * for a definite refusal, or {@code STORAGE_UNAVAILABLE} / {@code POLICY_UNAVAILABLE} when {@code retryable}.
     */
    record Refuse(String errorCode, String detail, boolean retryable) implements Result {
    }
}
