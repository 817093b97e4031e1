package io.actiongate.storage;

import java.util.Optional;

/**
 * Invocation-owned object storage for attachment bytes. Every method either answers or throws
 * {@link StorageUnavailableException} (transient); "not there" is an answer, never an exception.
 * Implementations are thread-safe.
 */
public interface AttachmentStore extends AutoCloseable {

    /**
     * Uploads {@code bytes} under a fresh key below the owner's prefix and records owner, size, content type and
     * SHA-256 as object metadata. Returns the metadata the proposal carries.
     */
    AttachmentRef stage(String ownerInvocationId, String contentType, byte[] bytes);

    /** The stored object's metadata (HEAD), empty when there is no such object. */
    Optional<StoredObject> describe(String objectKey);

    /**
     * Reads the object's bytes, computing SHA-256 while reading. Empty when there is no such object.
     *
     * @throws ObjectTooLargeException when the object holds more than {@code maxBytes}; reading stops there
     */
    Optional<ObjectContent> read(String objectKey, long maxBytes);

    /** Deletes one object; deleting an absent object is not an error. */
    void delete(String objectKey);

    /** Deletes everything the invocation staged; returns how many objects were deleted. Idempotent. */
    int deleteOwnedBy(String ownerInvocationId);

    /** Creates the bucket if missing and installs the expiry rule for abandoned staged objects. */
    InitResult init(int expiryDays);

    @Override
    void close();

    /** What {@link #init} did; {@code lifecycleNote} says why no rule was installed when that is so. */
    record InitResult(boolean bucketCreated, boolean lifecycleInstalled, String lifecycleNote) {
    }
}
