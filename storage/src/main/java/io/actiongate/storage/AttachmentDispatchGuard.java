package io.actiongate.storage;

import java.util.List;
import java.util.Optional;

/**
 * The executor's pre-dispatch check for reservations that carry attachments: first the live tool schema hash
 * ({@code TOOL_SCHEMA_CHANGED} when it moved since the proposal, or when no descriptor exists any more), then
 * every attachment read whole and verified on the bytes read ({@code ATTACHMENT_INVALID}). An unreachable store
 * or a policy view still catching up is retryable and sends nothing. Reservations without attachments proceed
 * untouched: the gate rechecked their policy (schema hash included) right before it reserved them.
 */
public final class AttachmentDispatchGuard implements PreDispatchCheck {

    public static final String STORAGE_UNAVAILABLE = "STORAGE_UNAVAILABLE";
    public static final String POLICY_UNAVAILABLE = "POLICY_UNAVAILABLE";
    public static final String ATTACHMENT_INVALID = "ATTACHMENT_INVALID";
    public static final String TOOL_SCHEMA_CHANGED = "TOOL_SCHEMA_CHANGED";

    private final AttachmentVerifier verifier;
    private final ObjectStoreConfig config;
    private final ToolSchemaHashes schemas;

    public AttachmentDispatchGuard(AttachmentVerifier verifier, ObjectStoreConfig config, ToolSchemaHashes schemas) {
        this.verifier = verifier;
        this.config = config;
        this.schemas = schemas;
    }

    @Override
    public Result check(Request request) {
        if (request.attachments().isEmpty()) {
            return new Proceed(List.of());
        }
        if (!schemas.ready()) {
            return new Refuse(POLICY_UNAVAILABLE, "tool descriptors are still loading", true);
        }
        Optional<String> live = schemas.schemaHash(request.provider(), request.toolName());
        if (live.isEmpty()) {
            return new Refuse(TOOL_SCHEMA_CHANGED, "no tool descriptor for " + request.provider() + "/"
                    + request.toolName(), false);
        }
        if (!live.get().equals(request.toolSchemaHash())) {
            return new Refuse(TOOL_SCHEMA_CHANGED, "tool schema changed since the proposal", false);
        }
        Verification verdict;
        try {
            verdict = verifier.verifyAndLoad(request.attachments(), request.invocationId(),
                    config.limits(request.provider(), request.toolName()));
        } catch (RuntimeException e) {
            return new Refuse(STORAGE_UNAVAILABLE, "attachment check failed (" + e.getClass().getSimpleName() + ")",
                    true);
        }
        if (verdict instanceof Verification.Failed failed) {
            return failed.retryable()
                    ? new Refuse(STORAGE_UNAVAILABLE, failed.reason(), true)
                    : new Refuse(ATTACHMENT_INVALID, failed.reason(), false);
        }
        return new Proceed(((Verification.Valid) verdict).loaded());
    }
}
