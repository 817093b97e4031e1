package io.actiongate.gate.internal;

import java.util.Optional;

import io.actiongate.avro.ActionProposal;
import io.actiongate.contract.ReasonCode;

/**
 * Admission's check of a proposal's attachments against object storage (ARCHITECTURE.md section 4, "Private
 * attachments"). Runs on a stream thread after every other admission check passed, so implementations bound the
 * time they take. {@link #WITHOUT_STORAGE} fails closed: without a store nothing with attachments is admitted.
 */
public interface AttachmentCheck {

    AttachmentCheck WITHOUT_STORAGE = p -> p.getAttachments().isEmpty() ? Optional.empty()
            : Optional.of(new Rejection(ReasonCode.ATTACHMENT_INVALID,
                    "attachments need object storage (storage.enabled=true), and none is configured"));

    Optional<Rejection> check(ActionProposal proposal);
}
