package io.actiongate.cli.commands;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.actiongate.avro.ActionProposal;
import io.actiongate.storage.AttachmentRef;
import io.actiongate.storage.AttachmentStager;
import io.actiongate.storage.ObjectStoreConfig;
import io.actiongate.storage.S3AttachmentStore;

/**
 * {@code propose --attach}: stages local files under the proposal's invocation and fills its {@code attachments}.
 * Local paths and file names never leave this class; the proposal carries object keys, hashes, sizes and types.
 */
final class ProposalAttachments {

    private static final Map<String, String> TYPES = Map.of(
            "pdf", "application/pdf", "txt", "text/plain", "csv", "text/csv", "json", "application/json",
            "png", "image/png", "jpg", "image/jpeg", "jpeg", "image/jpeg");

    private ProposalAttachments() {
    }

    /** The proposal with its attachments, and how to remove them again if publishing fails. */
    record Staged(ActionProposal proposal, Runnable cleanup) {
        void discard() {
            cleanup.run();
        }
    }

    static Staged stage(ObjectStoreConfig config, ActionProposal proposal, List<Path> files) {
        List<AttachmentStager.StagedFile> staged = files.stream()
                .map(f -> AttachmentStager.StagedFile.of(f, contentType(f))).toList();
        try (S3AttachmentStore store = S3AttachmentStore.create(config)) {
            List<AttachmentRef> refs;
            try {
                refs = new AttachmentStager(store).stage(proposal.getTaskId(), proposal.getToolCallId(), staged,
                        config.limits(proposal.getProvider(), proposal.getToolName()));
            } catch (AttachmentStager.StagingRefusedException e) {
                throw new CommandFailure("attachments refused: " + e.getMessage());
            }
            ActionProposal withAttachments = ActionProposal.newBuilder(proposal)
                    .setAttachments(refs.stream().map(AttachmentRef::toAvro).toList()).build();
            return new Staged(withAttachments, () -> {
                try (S3AttachmentStore again = S3AttachmentStore.create(config)) {
                    refs.forEach(r -> again.delete(r.objectKey()));
                }
            });
        }
    }

    static String contentType(Path file) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String ext = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
        return TYPES.getOrDefault(ext, "application/octet-stream");
    }
}
