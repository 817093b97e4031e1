package io.actiongate.storage;

/**
 * Why an attachment did not verify. Every kind but {@link #STORAGE_UNAVAILABLE} is a definite verdict on the
 * attachment ({@code ATTACHMENT_INVALID}); {@link #STORAGE_UNAVAILABLE} says nothing about it and is transient.
 */
public enum AttachmentFailure {
    /** The action's metadata names another owner than the action, or a key outside the action's prefix. */
    FOREIGN_KEY,
    /** No object under the key. */
    MISSING,
    /** The object's recorded owner is not the action's invocation. */
    WRONG_OWNER,
    /** The stored or read size differs from the action's {@code size_bytes}. */
    SIZE_MISMATCH,
    /** The stored content type differs from the action's {@code content_type}. */
    CONTENT_TYPE_MISMATCH,
    /** The recorded or computed SHA-256 differs from the action's {@code sha256}. */
    HASH_MISMATCH,
    /** Too many attachments, a file or the total over the tool's limit. */
    TOO_LARGE,
    /** The content type is not on the tool's allow-list. */
    CONTENT_TYPE_NOT_ALLOWED,
    /** The store could not be asked (unreachable, timeout, 5xx). Transient; never a verdict. */
    STORAGE_UNAVAILABLE;

    public boolean transientFailure() {
        return this == STORAGE_UNAVAILABLE;
    }
}
