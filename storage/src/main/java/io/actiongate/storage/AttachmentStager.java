package io.actiongate.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The staging API for tool hosts (and {@code actiongate propose --attach}): uploads an action's files under its
 * invocation, within the tool's limits, and returns the {@code attachments} metadata for the proposal. All or
 * nothing: when one file fails, what was already staged for this call is deleted again.
 *
 * <p>Only the metadata leaves this class; file paths and names stay local (no topic ever holds a local path).
 */
public final class AttachmentStager {

    private final AttachmentStore store;

    public AttachmentStager(AttachmentStore store) {
        this.store = store;
    }

    /** One file to stage: its bytes and declared content type. */
    public record StagedFile(byte[] bytes, String contentType) {
        public StagedFile {
            Objects.requireNonNull(bytes, "bytes");
            Objects.requireNonNull(contentType, "contentType");
        }

        public static StagedFile of(Path path, String contentType) {
            try {
                return new StagedFile(Files.readAllBytes(path), contentType);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the attachment file", e);
            }
        }

        @Override
        public String toString() {
            return "StagedFile[" + bytes.length + " bytes, " + contentType + "]";
        }
    }

    /** Refused before anything was uploaded: over a limit or a disallowed content type. */
    public static final class StagingRefusedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StagingRefusedException(String message) {
            super(message);
        }
    }

    /**
     * Stages {@code files} for the action {@code taskId/toolCallId}.
     *
     * @throws StagingRefusedException when a limit refuses the files (nothing uploaded)
     * @throws StorageUnavailableException when the store cannot be reached (nothing left behind when possible)
     */
    public List<AttachmentRef> stage(String taskId, String toolCallId, List<StagedFile> files,
                                     AttachmentLimits limits) {
        String owner = Invocations.ownerId(taskId, toolCallId);
        if (files.size() > limits.maxAttachments()) {
            throw new StagingRefusedException(files.size() + " attachments, at most " + limits.maxAttachments());
        }
        long total = 0;
        for (int i = 0; i < files.size(); i++) {
            StagedFile file = files.get(i);
            if (file.bytes().length > limits.maxFileBytes()) {
                throw new StagingRefusedException("attachment " + (i + 1) + " holds " + file.bytes().length
                        + " bytes, at most " + limits.maxFileBytes());
            }
            if (!limits.allows(file.contentType())) {
                throw new StagingRefusedException("attachment " + (i + 1) + ": content type "
                        + ContentTypes.mediaType(file.contentType()) + " is not allowed for this tool");
            }
            total += file.bytes().length;
        }
        if (total > limits.maxActionBytes()) {
            throw new StagingRefusedException(total + " bytes in all, at most " + limits.maxActionBytes());
        }
        List<AttachmentRef> staged = new ArrayList<>();
        try {
            for (StagedFile file : files) {
                staged.add(store.stage(owner, file.contentType(), file.bytes()));
            }
            return List.copyOf(staged);
        } catch (RuntimeException e) {
            for (AttachmentRef ref : staged) {
                try {
                    store.delete(ref.objectKey());
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
    }
}
