package io.actiongate.gate;

import java.util.Optional;

import io.actiongate.avro.ActionProposal;
import io.actiongate.storage.AttachmentRef;
import io.actiongate.storage.BoundedAdmissionCheck;
import io.actiongate.storage.Verification;

/**
 * The gate's attachment check over the object store: each object exists, belongs to the proposal's invocation
 * ({@code task_id/tool_call_id}), and its stored size, content type and recorded SHA-256 equal the proposal's.
 * Any failure, an unreachable store included, is {@code ATTACHMENT_INVALID}: admission never passes on evidence
 * it could not read.
 */
public final class StorageAttachmentCheck implements AttachmentCheck {

    private final BoundedAdmissionCheck check;

    public StorageAttachmentCheck(BoundedAdmissionCheck check) {
        this.check = check;
    }

    @Override
    public Optional<String> check(ActionProposal p) {
        return check.check(p.getTaskId(), p.getToolCallId(), p.getProvider(), p.getToolName(),
                        p.getAttachments().stream().map(AttachmentRef::fromAvro).toList())
                .map(StorageAttachmentCheck::reason);
    }

    private static String reason(Verification.Failed failed) {
        return failed.retryable()
                ? failed.reason() + " (could not be verified; propose again once the store is reachable)"
                : failed.reason();
    }
}
