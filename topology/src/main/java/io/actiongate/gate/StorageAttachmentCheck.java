package io.actiongate.gate;

import java.util.Optional;

import io.actiongate.avro.ActionProposal;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.internal.AttachmentCheck;
import io.actiongate.gate.internal.Rejection;
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
    public Optional<Rejection> check(ActionProposal p) {
        return check.check(p.getTaskId(), p.getToolCallId(), p.getProvider(), p.getToolName(),
                        p.getAttachments().stream().map(AttachmentRef::fromAvro).toList())
                .map(StorageAttachmentCheck::rejection);
    }

    private static Rejection rejection(Verification.Failed failed) {
        String reason = failed.retryable()
                ? failed.reason() + " (could not be verified; propose again once the store is reachable)"
                : failed.reason();
        return new Rejection(ReasonCode.ATTACHMENT_INVALID, reason);
    }
}
