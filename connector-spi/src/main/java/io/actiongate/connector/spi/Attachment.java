package io.actiongate.connector.spi;

import java.util.Objects;

/**
 * An attachment as it travels with a reservation. The reference (key, hash, size, type) comes from the action;
 * {@code content} is the bytes the executor read and verified against that reference right before dispatch, held
 * only in memory. A connector sends {@code content} and nothing else: it never fetches objects itself.
 * {@link #toString()} never shows the bytes.
 */
public record Attachment(String objectKey, String sha256, long sizeBytes, String contentType, byte[] content) {

    public Attachment {
        Objects.requireNonNull(objectKey, "objectKey");
    }

    /** A reference whose bytes were not loaded; connectors refuse to send it. */
    public Attachment(String objectKey, String sha256, long sizeBytes, String contentType) {
        this(objectKey, sha256, sizeBytes, contentType, null);
    }

    /** True when the executor loaded and verified the bytes. */
    public boolean hasContent() {
        return content != null && content.length == sizeBytes;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Attachment a && objectKey.equals(a.objectKey) && Objects.equals(sha256, a.sha256)
                && sizeBytes == a.sizeBytes && Objects.equals(contentType, a.contentType)
                && java.util.Arrays.equals(content, a.content);
    }

    @Override
    public int hashCode() {
        return Objects.hash(objectKey, sha256, sizeBytes, contentType);
    }

    @Override
    public String toString() {
        return "Attachment[" + objectKey + ", " + sizeBytes + " bytes, " + contentType
                + (content == null ? ", not loaded]" : ", loaded]");
    }
}
