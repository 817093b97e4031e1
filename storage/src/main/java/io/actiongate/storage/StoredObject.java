package io.actiongate.storage;

/**
 * What the object store says about one object (HEAD, or the headers of a GET). {@code ownerInvocationId} and
 * {@code sha256} come from the object's user metadata and are null when the object carries none.
 */
public record StoredObject(String objectKey, String ownerInvocationId, long sizeBytes, String contentType,
                           String sha256) {
}
