package io.actiongate.storage;

/**
 * What the object store says about one object (HEAD, or the headers of a GET). {@code ownerInvocationId} and
 * {@code sha256} come from the object's user metadata, which whoever wrote the object chose: {@code sha256} is
 * informational and never evidence. {@code storeSha256} is the store's own full-object SHA-256 checksum (S3
 * additional checksums, {@code x-amz-checksum-sha256}, verified by the store against the bytes it received and
 * returned by a HEAD in checksum mode), lowercase hex; null when the store keeps none for the object.
 */
public record StoredObject(String objectKey, String ownerInvocationId, long sizeBytes, String contentType,
                           String sha256, String storeSha256) {
}
