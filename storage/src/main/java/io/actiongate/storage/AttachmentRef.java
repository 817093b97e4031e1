package io.actiongate.storage;

import java.util.Objects;

import io.actiongate.avro.Attachment;

/**
 * The immutable metadata an action holds about one attachment (docs/contract.md section 3, {@code attachments}).
 * Never the content. {@code sha256} is lowercase hex.
 */
public record AttachmentRef(String objectKey, String sha256, long sizeBytes, String contentType,
                            String ownerInvocationId) {

    public AttachmentRef {
        Objects.requireNonNull(objectKey, "objectKey");
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(ownerInvocationId, "ownerInvocationId");
    }

    public static AttachmentRef fromAvro(Attachment a) {
        return new AttachmentRef(a.getObjectKey(), a.getSha256(), a.getSizeBytes(), a.getContentType(),
                a.getOwnerInvocationId());
    }

    public Attachment toAvro() {
        return Attachment.newBuilder().setObjectKey(objectKey).setSha256(sha256).setSizeBytes(sizeBytes)
                .setContentType(contentType).setOwnerInvocationId(ownerInvocationId).build();
    }
}
