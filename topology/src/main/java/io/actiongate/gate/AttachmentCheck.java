package io.actiongate.gate;

import java.util.Optional;

import io.actiongate.avro.ActionProposal;

/**
 * Admission's check of a proposal's attachments against object storage (docs/contract.md section 4, "Private
 * attachments"). Runs on a stream thread after every other admission check passed, so implementations bound the
 * time they take. {@link #WITHOUT_STORAGE} fails closed: without a store nothing with attachments is admitted.
 */
public interface AttachmentCheck {

    AttachmentCheck WITHOUT_STORAGE = p -> p.getAttachments().isEmpty() ? Optional.empty()
            : Optional.of("attachments need object storage (storage.enabled=true), and none is configured");

    /**
     * Why the proposal's attachments are refused ({@code ATTACHMENT_INVALID}; a redacted reason naming the
     * attachment and what differs, never a path or URL), or empty when every attachment verifies.
     */
    Optional<String> check(ActionProposal proposal);
}
